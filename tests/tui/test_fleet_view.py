"""The Fleet tab: ``envsnap tui fleet/`` on a fleet folder (nodes, groups, the odd node's diff)."""

from __future__ import annotations

from pathlib import Path

import msgspec
from textual.widgets import DataTable, Static

from envsnap.fleet.index import FleetIndex, NodeRecord, write_index
from envsnap.render.diff import MAX_TABLE_ROWS
from envsnap.snapshot import store
from envsnap.snapshot.model import Package
from envsnap.tui.screens.fleet import FleetScreen
from tests.fakes.diff_snapshots import T4, make, with_nvidia
from tests.tui.conftest import AppFactory, wait_for


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "fleet"
    folder.mkdir()
    good = make(hostname="gpu")
    odd = with_nvidia(make(hostname="gpu", gpus=T4), driver_version="515.105.01")
    records: list[NodeRecord] = []
    for name, snapshot in (("gpu01", good), ("gpu02", odd), ("gpu03", good)):
        store.save(snapshot, folder / f"{name}.yaml")
        records.append(NodeRecord(name=name, status="ok", file=f"{name}.yaml"))
    records.append(NodeRecord(name="gpu\x1b[2J04", status="unreachable", reason="Connection refused"))
    write_index(
        folder, FleetIndex(collected_at="2026-12-01T00:00:00Z", transport="ssh", nodes=tuple(records))
    )
    return folder


async def test_fleet_folder_opens_on_the_odd_node_and_its_diff(make_app: AppFactory, tmp_path: Path) -> None:
    app = make_app(snapshot_path=_folder(tmp_path))
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for(lambda: isinstance(app.screen, FleetScreen), pilot)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FleetScreen)
        assert str(screen.query_one("#fleet-headline", Static).render()).startswith("odd one out: gpu02")
        nodes = screen.query_one("#fleet-nodes", DataTable)
        assert nodes.row_count == 4
        rows = [[str(cell) for cell in nodes.get_row_at(i)] for i in range(nodes.row_count)]
        assert rows[0][:3] == ["gpu01", "ok", "majority"]
        assert rows[1][:5] == ["gpu02", "ok", "group 2", "1× Tesla T4", "515.105.01"]
        assert rows[3][0] == "gpu\\x1b[2J04"  # escaped, never sent to the terminal raw
        assert rows[3][1] == "unreachable"
        assert nodes.cursor_row == 1  # starts on the odd node
        diff = screen.query_one("#fleet-diff", DataTable)
        paths = [str(diff.get_row_at(i)[1]) for i in range(diff.row_count)]
        assert any(path.startswith("accelerators.nvidia") for path in paths)
        assert str(diff.get_row_at(0)[0]) == "breaking"
        await pilot.press("up")  # the majority node: nothing to show
        await pilot.pause()
        assert diff.row_count == 0
        heading = str(screen.query_one("#fleet-diff-heading", Static).render())
        assert "majority group" in heading
        await pilot.press("down", "down", "down")
        await pilot.pause()
        assert "not collected (unreachable)" in str(screen.query_one("#fleet-diff-heading", Static).render())


async def test_an_odd_node_with_thousands_of_differences_shows_the_most_severe(
    make_app: AppFactory, tmp_path: Path
) -> None:
    # #15 item 13: a DataTable row costs ~0.1 ms, so 150k differences froze the view; it holds
    # MAX_TABLE_ROWS, the breaking ones first in severity, and the heading says what was cut.
    folder = tmp_path / "fleet"
    folder.mkdir()
    good = make(hostname="gpu")
    extra = tuple(Package(name=f"pkg-{i:05d}", version="1.0") for i in range(MAX_TABLE_ROWS + 10))
    packages = (*(good.packages or ()), *extra)
    many = msgspec.structs.replace(with_nvidia(good, driver_version="515.105.01"), packages=packages)
    records: list[NodeRecord] = []
    for name, snapshot in (("gpu01", good), ("gpu02", many), ("gpu03", good)):
        store.save(snapshot, folder / f"{name}.yaml")
        records.append(NodeRecord(name=name, status="ok", file=f"{name}.yaml"))
    index = FleetIndex(collected_at="2026-12-01T00:00:00Z", transport="ssh", nodes=tuple(records))
    write_index(folder, index)
    app = make_app(snapshot_path=folder)
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for(lambda: isinstance(app.screen, FleetScreen), pilot)
        await pilot.pause()
        screen = app.screen
        diff = screen.query_one("#fleet-diff", DataTable)
        assert diff.row_count == MAX_TABLE_ROWS
        impacts = [str(diff.get_row_at(i)[0]) for i in range(diff.row_count)]
        assert "breaking" in impacts  # the driver downgrade is kept whatever its place in layer order
        heading = str(screen.query_one("#fleet-diff-heading", Static).render())
        assert f"the {MAX_TABLE_ROWS:,} most severe shown" in heading


HOSTILE_GPU = "[link=https://evil.example/x]click[/link] [/] [bold red]H100"
HOSTILE_DRIVER = "\x1b]8;;https://evil.example\x07535\x1b]8;;\x07 [/]"


async def test_hostile_node_data_is_shown_as_text(make_app: AppFactory, tmp_path: Path) -> None:
    """Issue 24 item 4: a node's GPU named `[/]` crashed the view; `[link=...]` made a link."""
    folder = tmp_path / "fleet"
    folder.mkdir()
    good = make(hostname="gpu")
    nvidia = good.accelerators.nvidia  # type: ignore[union-attr]
    devices = tuple(msgspec.structs.replace(d, name=HOSTILE_GPU) for d in nvidia.devices or ())  # type: ignore[union-attr]
    odd = with_nvidia(good, devices=devices, driver_version=HOSTILE_DRIVER)
    huge = with_nvidia(good, driver_version="535." + "x" * 200_000)
    records: list[NodeRecord] = []
    for name, snapshot in (("gpu01", good), ("[/]odd", odd), ("gpu03", good), ("big", huge)):
        file = f"n{len(records)}.yaml"
        store.save(snapshot, folder / file)
        records.append(NodeRecord(name=name, status="ok", file=file))
    records.append(
        NodeRecord(name="[link=https://evil.example]gpu05[/link]", status="unreachable", reason="[/] boom")
    )
    write_index(
        folder, FleetIndex(collected_at="2026-12-01T00:00:00Z", transport="ssh", nodes=tuple(records))
    )
    app = make_app(snapshot_path=folder)
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for(lambda: isinstance(app.screen, FleetScreen) or app.main.load_error, pilot)
        assert app.main.load_error is None, app.main.load_error
        await pilot.pause()
        screen = app.screen
        nodes = screen.query_one("#fleet-nodes", DataTable)
        cells = [nodes.get_row_at(i) for i in range(nodes.row_count)]
        rows = [[str(cell) for cell in row] for row in cells]
        by_name = {row[0]: row for row in rows}
        assert by_name["[/]odd"][3].endswith(HOSTILE_GPU)  # shown as written, not parsed
        assert "\x1b" not in by_name["[/]odd"][4]  # the OSC 8 hyperlink is escaped
        assert by_name["[/]odd"][4].startswith("\\x1b]8;;https://evil.example")
        assert by_name["[link=https://evil.example]gpu05[/link]"][6] == "[/] boom"
        assert len(by_name["big"][4]) < 70_000  # clipped like every TUI field
        for row in cells:  # no cell carries a style or link the data asked for
            for cell in row:
                assert not getattr(cell, "spans", []), row
        for index in range(nodes.row_count):  # every node's diff renders too
            nodes.move_cursor(row=index)
            await pilot.pause()
        assert app.return_code is None
