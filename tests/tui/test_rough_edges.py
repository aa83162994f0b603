"""The TUI's rough edges a newcomer hit (hardening item 15), each pinned by a test.

A saved row cut to the header widths, save/pause offered on a read-only file, ctrl+c not quitting,
"not installed: not installed", a findings count that read as four findings, and percentages drawn
on the data's own min..max.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Sparkline

from envsnap.live.run_report import save_run_report
from envsnap.snapshot import store
from envsnap.tui.overview_rows import LayerRow
from envsnap.tui.panes.overview import row_text
from envsnap.tui.widgets.scaled_sparkline import ScaledSparkline, scaled_bars
from tests.fakes.fake_telemetry import RecordedHost
from tests.fakes.run_reports import fallback_on_t4
from tests.tui.conftest import AppFactory, host_snapshot, recorded_findings, until_ready, wait_for
from tests.tui.test_run_view import _run_screen


def _shown_keys(app: object) -> dict[str, str]:
    """Footer keys on the current screen and their descriptions (bindings shown, not hidden)."""
    bindings = app.screen.active_bindings  # type: ignore[attr-defined]
    return {key: active.binding.description for key, active in bindings.items() if active.binding.show}


async def test_a_row_saved_into_an_empty_tab_shows_whole(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("5")
        await wait_for(lambda: app.main.entries == (), pilot)
        await pilot.press("s")
        await wait_for(lambda: bool(app.main.entries), pilot)
        await pilot.pause(0.2)
        table = app.main.query_one("#snapshot-table", DataTable)
        name = table.get_row_at(0)[1].plain
        assert len(name) > len("file")
        column = table.columns[next(iter(k for k in table.columns if k.value == "file"))]
        assert column.get_render_width(table) >= len(name) + 2 * table.cell_padding
        row = "".join(segment.text for segment in table.render_line(1))
        assert name in row


async def test_a_read_only_file_offers_no_save_or_pause(
    make_app: AppFactory, tmp_path: Path, v100: RecordedHost
) -> None:
    path = store.save(host_snapshot(v100, recorded_findings()), tmp_path / "gpu.yaml")
    app = make_app(snapshot_path=path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.main.snapshot is not None, pilot)
        shown = _shown_keys(app)
        assert "s" not in shown
        assert "p" not in shown
        assert shown["r"] == "Re-read"
        await pilot.press("s")  # nothing to save, and nothing written
        await pilot.pause()
        assert not (tmp_path / "snapshots").exists()


async def test_live_mode_still_offers_save_pause_refresh(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        shown = _shown_keys(app)
        assert (shown["s"], shown["p"], shown["r"]) == ("Save", "Pause", "Refresh")


async def test_r_re_reads_a_run_report(make_app: AppFactory, tmp_path: Path) -> None:
    report = fallback_on_t4()
    path = save_run_report(report, tmp_path / "run.yaml")
    app = make_app(snapshot_path=path)
    async with app.run_test(size=(100, 40)) as pilot:
        await _run_screen(app, pilot)
        assert _shown_keys(app).get("r") == "Re-read"


async def test_ctrl_c_quits(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.return_code == 0
        assert not app.is_running or app._exit  # the exit was requested


def test_an_absent_layer_does_not_repeat_itself() -> None:
    row = LayerRow("torch", "PyTorch", "absent", "not installed", "not installed")
    assert row_text(row).plain == "not installed"
    other = LayerRow("rocm", "ROCm", "absent", "not installed", "no /opt/rocm")
    assert row_text(other).plain == "not installed: no /opt/rocm"


async def test_the_findings_line_does_not_read_as_a_fifth_count(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        text = str(app.main.query_one("#overview-findings").render())
        assert "(Checks tab: 4)" not in text
        assert "details: press 4 (Checks tab)" in text


def test_percent_bars_are_on_a_fixed_scale() -> None:
    # Textual's own Sparkline would draw 47 → 50 % from the bottom to the top of the row.
    assert scaled_bars([47.0, 48.0, 50.0], width=3, ceiling=100.0) == "▄▄▄"
    assert scaled_bars([0.0, 100.0], width=2, ceiling=100.0) == "▁█"
    assert scaled_bars([0.0, 250.0], width=2, ceiling=250.0) == "▁█"  # CPU: 250 = 2.5 cores at peak
    assert scaled_bars([], width=4, ceiling=100.0) == ""


async def test_the_run_view_draws_percentages_on_0_to_100(make_app: AppFactory, tmp_path: Path) -> None:
    path = save_run_report(fallback_on_t4(), tmp_path / "run.yaml")
    app = make_app(snapshot_path=path)
    async with app.run_test(size=(120, 50)) as pilot:
        screen = await _run_screen(app, pilot)
        cpu, util, memory = screen.query(Sparkline)
        assert isinstance(cpu, ScaledSparkline)
        assert cpu.ceiling == max(100.0, *(cpu.data or ()))
        assert isinstance(util, ScaledSparkline)
        assert util.ceiling == 100.0
        assert not isinstance(memory, ScaledSparkline)  # bytes keep min..max, with their range labelled
