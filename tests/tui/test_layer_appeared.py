"""Issue 24 item 5: a layer that went from skipped to ok says what appeared, on the diff screen and
in the fleet view ("skipped → ok" alone hid the driver version and the GPUs)."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import DataTable

from envsnap.compare.diff import diff
from envsnap.fleet.index import FleetIndex, NodeRecord, write_index
from envsnap.snapshot import store
from envsnap.snapshot.model import Snapshot
from envsnap.tui.overview_rows import working_summaries
from envsnap.tui.screens.diff import DiffScreen, describe
from envsnap.tui.screens.fleet import FleetScreen
from tests.fakes.diff_snapshots import make, with_nvidia
from tests.tui.conftest import AppFactory, wait_for

APPEARED = "driver 535.54.03 · CUDA ≤ 12.2 · 1× NVIDIA A100-SXM4-80GB"


def _pair() -> tuple[Snapshot, Snapshot]:
    working = make(hostname="gpu")
    skipped = with_nvidia(
        working, status="skipped", reason="no NVIDIA driver loaded", devices=None, driver_version=None
    )
    return skipped, working


def test_skipped_to_ok_names_what_appeared_and_ok_to_skipped_what_vanished() -> None:
    skipped, working = _pair()
    up = diff(skipped, working)
    section = next(c for c in up if c.path == "accelerators.nvidia")
    summaries = working_summaries(up, skipped, working)
    assert summaries == {"accelerators.nvidia": APPEARED}
    assert describe(section, summaries[section.path]) == f"skipped: no NVIDIA driver loaded → ok: {APPEARED}"
    down = diff(working, skipped)
    gone = next(c for c in down if c.path == "accelerators.nvidia")
    assert describe(gone, working_summaries(down, working, skipped)[gone.path]) == (
        f"ok ({APPEARED}) → skipped: no NVIDIA driver loaded"
    )
    assert describe(gone) == "ok → skipped: no NVIDIA driver loaded"  # without a summary, as before


async def test_diff_screen_row_shows_the_driver_that_appeared(make_app: AppFactory, tmp_path: Path) -> None:
    skipped, working = _pair()
    changes = diff(skipped, working)
    app = make_app(snapshot_path=store.save(working, tmp_path / "now.yaml"))
    async with app.run_test(size=(160, 40)) as pilot:
        await app.push_screen(
            DiffScreen("before.yaml", "now.yaml", changes, (), working_summaries(changes, skipped, working))
        )
        await pilot.pause()
        table = app.screen.query_one("#diff-table", DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        row = next(r for r in rows if r[2] == "accelerators.nvidia")
        assert row[3].endswith(f"→ ok: {APPEARED}")


async def test_fleet_view_shows_what_the_odd_node_has(make_app: AppFactory, tmp_path: Path) -> None:
    skipped, working = _pair()
    folder = tmp_path / "fleet"
    folder.mkdir()
    records = []
    for name, snapshot in (("cpu01", skipped), ("cpu02", skipped), ("gpu03", working)):
        store.save(snapshot, folder / f"{name}.yaml")
        records.append(NodeRecord(name=name, status="ok", file=f"{name}.yaml"))
    write_index(
        folder, FleetIndex(collected_at="2026-12-01T00:00:00Z", transport="ssh", nodes=tuple(records))
    )
    app = make_app(snapshot_path=folder)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for(lambda: isinstance(app.screen, FleetScreen), pilot)
        await pilot.pause()
        diff_table = app.screen.query_one("#fleet-diff", DataTable)
        rows = [[str(cell) for cell in diff_table.get_row_at(i)] for i in range(diff_table.row_count)]
        row = next(r for r in rows if r[1] == "accelerators.nvidia")
        assert row[2].startswith("skipped")  # the majority
        assert row[3] == f"ok: {APPEARED}"  # this node: what it has that the majority lacks
        assert all(isinstance(cell, Text) for cell in diff_table.get_row_at(0))
