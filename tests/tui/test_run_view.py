"""The Run view: ``envsnap tui REPORT.yaml`` on reports of real ``envsnap run`` sessions.

Reports come from the real code path: ``run_workload`` on a tiny real child process beside a
recorded GPU (tests/fakes/workload_gpu.py, replayed nvidia-smi captures) with the test-sized
thresholds of tests/live, saved with ``save_run_report``. The screenshots use a fixed report built
by the real verdict code from fixed samples (tests/fakes/run_reports.py), so they never change.
"""

from __future__ import annotations

import io
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args, get_type_hints

import msgspec
import pytest
from click.testing import CliRunner
from rich.console import Console
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.renderables.sparkline import Sparkline as SparklineRenderable
from textual.widgets import DataTable, Sparkline, Static

from envsnap.cli import cli
from envsnap.documents import RUN_REPORT_KINDS, load_document
from envsnap.errors import BadInput
from envsnap.live.fallback import run_workload
from envsnap.live.run_report import GpuTick, RunReport, Tick, Window, save_run_report
from envsnap.snapshot import store
from envsnap.snapshot.model import Snapshot
from envsnap.tui.app import EnvsnapApp
from envsnap.tui.run_series import columns, timeline_series, window_marks
from envsnap.tui.screens.run import RunScreen
from tests.fakes.fake_telemetry import RecordedHost
from tests.fakes.run_reports import fallback_on_t4
from tests.fakes.workload_gpu import BUSY_V100, IDLE_T4, sampler
from tests.live.conftest import FAST, StopWhenJudged, busy_until, fake_proc, sleeper
from tests.tui.conftest import AppFactory, host_snapshot, wait_for

SnapCompare = Callable[..., bool]
T4_PIDS = (675, 5762)
"""The T4 capture's own GPU processes (Xorg, another python): present, so "none is ours" is sure."""
T4_MEMORY_USED_BYTES = 1082130432
"""Memory used on the T4 in its capture (1032 MiB)."""


async def _run_screen(app: EnvsnapApp, pilot: Pilot[Any]) -> RunScreen:
    await wait_for(lambda: isinstance(app.screen, RunScreen), pilot)
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, RunScreen)
    return screen


def _text(screen: RunScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def _facts(screen: RunScreen, grid: str) -> list[str]:
    return [str(cell.render()) for cell in screen.query(f"#{grid} > Static")]


def _notes(notes: list[str]) -> Callable[[object], None]:
    def hook(message: object) -> None:
        if isinstance(message, Notify):
            notes.append(message.notification.message)

    return hook


# ---------------------------------------------------------------------------- real runs


async def test_cpu_fallback_run_opens_in_the_run_view(make_app: AppFactory, tmp_path: Path) -> None:
    gpu_sampler, _ = sampler(IDLE_T4)
    root = fake_proc(tmp_path / "proc", pids=T4_PIDS)
    stop = tmp_path / "stop"
    report = run_workload(
        busy_until(stop), thresholds=FAST, sampler=gpu_sampler, proc_root=root, on_tick=StopWhenJudged(stop)
    )
    assert report.verdict == "cpu-fallback-suspected"
    assert report.windows is not None
    path = save_run_report(report, tmp_path / "run.yaml")
    notes: list[str] = []

    app = make_app(snapshot_path=path)
    async with app.run_test(size=(120, 50), message_hook=_notes(notes)) as pilot:
        screen = await _run_screen(app, pilot)
        verdict = _text(screen, "#run-verdict")
        assert verdict.startswith(" ✖ cpu-fallback-suspected ")
        assert report.summary in verdict
        header = _facts(screen, "run-header")
        shown_command = header[header.index("Command") + 1]
        assert report.command is not None
        assert shown_command == " ".join(shlex.join(report.command).split())  # one line, shell-quoted
        assert " -c " in shown_command
        assert header[header.index("Run") + 1] == f"envsnap run · PID {report.pid} · exit 0"
        assert header[header.index("Attribution") + 1] == "absent"
        thresholds = header[header.index("Thresholds") + 1]
        assert (
            f"CPU-bound: demand ≥ {FAST.cpu_busy_percent:g}% (used + waited for; 100 = one core) for ≥ 0.5 s"
            in thresholds
        )
        evidence = _facts(screen, "run-evidence")[1::2]
        assert evidence == list(report.evidence)

        cpu, util, memory = (spark.data for spark in screen.query(Sparkline))
        assert list(cpu or ()) == [tick.cpu_percent for tick in report.timeline]
        assert max(cpu or ()) >= FAST.cpu_busy_percent
        assert list(util or ()) == [0.0] * len(report.timeline)
        assert list(memory or ()) == [T4_MEMORY_USED_BYTES] * len(report.timeline)

        window = report.windows[0]
        assert f"{window.start_s:g} s → {window.end_s:g} s" in _text(screen, "#run-windows")
        table = screen.query_one("#run-processes", DataTable)
        assert table.row_count == len(report.processes) == 1
        assert str(table.get_row_at(0)[0]) == str(report.processes[0].pid)

        await pilot.press("2", "s")  # no tabs to switch to, nothing to save
        await wait_for(lambda: len(notes) == 2, pilot)
        assert "no snapshot tabs" in notes[0]
        assert "saved run report (read-only)" in notes[1]
        assert app.screen is screen
        await pilot.press("question_mark")
        await wait_for(lambda: app.screen.id == "help-screen", pilot)
        keys = str(app.screen.query_one("#help-text", Static).render())
        assert "Run view" in keys
        assert "Re-read" in keys  # r reads the file again; nothing to save or pause
        assert "Save" not in keys
        assert "Pause" not in keys
        assert "Packages tab" not in keys
        await pilot.press("escape")
        assert app.screen is screen


async def test_gpu_active_run_shows_the_busy_gpu(make_app: AppFactory, tmp_path: Path) -> None:
    pids: list[int] = []
    gpu_sampler, _ = sampler(BUSY_V100, claim=lambda: pids[0] if pids else None)
    report = run_workload(
        sleeper(0.8),
        thresholds=FAST,
        sampler=gpu_sampler,
        proc_root=fake_proc(tmp_path / "proc"),
        on_start=pids.append,
    )
    path = save_run_report(report, tmp_path / "run.yaml")

    app = make_app(snapshot_path=path)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await _run_screen(app, pilot)
        assert _text(screen, "#run-verdict").startswith(" ● gpu-active ")
        header = _facts(screen, "run-header")
        assert header[header.index("Attribution") + 1] == "found"
        labels = [str(label.render()) for label in screen.query(".run-label")]
        assert labels[:3] == ["tree CPU", "nvidia 0 util", "nvidia 0 memory"]
        util = screen.query_one("#run-spark-1", Sparkline).data
        assert util is not None
        assert set(util) == {91.0}  # the capture's utilization, every sample
        assert "min 91  max 91  mean 91 %" in [str(s.render()) for s in screen.query(".run-stats")]


# ---------------------------------------------------------------------------- files


def test_read_document_tells_reports_from_snapshots(v100: RecordedHost, tmp_path: Path) -> None:
    report = fallback_on_t4()
    run_path = save_run_report(report, tmp_path / "run.yaml")
    watch = msgspec.structs.replace(report, report="envsnap-watch", mode="watch", exit_code=None)
    watch_path = save_run_report(watch, tmp_path / "watch.json")
    snapshot_path = store.save(host_snapshot(v100), tmp_path / "snap.yaml")

    assert load_document(run_path) == report
    opened_watch = load_document(watch_path)
    assert isinstance(opened_watch, RunReport)
    assert opened_watch.mode == "watch"
    assert isinstance(load_document(snapshot_path), Snapshot)
    # The kinds the reader looks for are the ones the report model can say.
    assert set(RUN_REPORT_KINDS) == set(get_args(get_type_hints(RunReport)["report"]))


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda t: t.replace("verdict: cpu-fallback-suspected", "verdict: maybe"),
            "not a valid `envsnap run`",
        ),
        (lambda t: t[: len(t) // 2] + "\n- [unclosed\n", "not valid YAML"),
        (lambda t: t.replace("\nschema: 1\n", "\nschema: 7\n"), "newer envsnap (run report schema 7)"),
        (lambda t: t.replace("report: envsnap-run", "report: envsnap-guard"), "`envsnap.guard` op report"),
    ],
    ids=["bad-verdict", "truncated", "newer", "guard-report"],
)
async def test_report_that_wont_load_is_the_error_state(
    make_app: AppFactory, tmp_path: Path, edit: Callable[[str], str], expected: str
) -> None:
    path = tmp_path / "run.yaml"
    path.write_text(edit(fallback_on_t4().to_yaml()), encoding="utf-8")
    with pytest.raises(BadInput, match=r"run\.yaml"):
        load_document(path)

    app = make_app(snapshot_path=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: app.main.load_error is not None, pilot)
        await pilot.pause()
        error = str(app.main.query_one("#overview-error", Static).render())
        assert expected in error
        assert "run.yaml" in error
        assert not any(isinstance(screen, RunScreen) for screen in app.screen_stack)
        await pilot.press("4", "1")  # the tabs still work
        assert app.is_running


async def test_refresh_rereads_the_report_and_a_broken_one_closes_the_view(
    make_app: AppFactory, tmp_path: Path
) -> None:
    report = fallback_on_t4()
    path = save_run_report(report, tmp_path / "run.yaml")
    app = make_app(snapshot_path=path)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await _run_screen(app, pilot)
        save_run_report(
            msgspec.structs.replace(report, command=("python", "train.py", "--epochs", "4")), path
        )
        await pilot.press("r")
        await wait_for(lambda: "--epochs 4" in " ".join(_facts(screen, "run-header")), pilot)
        assert app.screen is screen

        path.write_text("report: envsnap-run\nschema: 1\n", encoding="utf-8")
        await pilot.press("r")
        await wait_for(lambda: app.screen is app.main, pilot)
        assert app.main.load_error is not None
        assert "not a valid" in app.main.load_error
        assert app.run_report is None


async def test_file_text_is_shown_as_text_and_secrets_are_scrubbed(
    make_app: AppFactory, tmp_path: Path
) -> None:
    # A hand-edited (or foreign) report: markup, terminal escapes and a token in its strings.
    report = fallback_on_t4()
    command = (
        "python",
        "[bold red]boom[/]",
        "\x1b]0;owned\x07",
        "--hf-token",
        "hf_abcdefghijklmnopqrstuvwxyz0123",
    )
    process = msgspec.structs.replace(report.processes[0], name="[link=https://example.com]x[/link]")
    edited = msgspec.structs.replace(
        report, command=command, processes=(process, *report.processes[1:]), summary="done \x1b[2J"
    )
    path = save_run_report(edited, tmp_path / "run.yaml")

    app = make_app(snapshot_path=path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _run_screen(app, pilot)
        header = _facts(screen, "run-header")
        shown = header[header.index("Command") + 1]
        assert "'[bold red]boom[/]'" in shown
        assert "\\x1b]0;owned\\x07" in shown
        assert "hf_abcdefghijklmnopqrstuvwxyz0123" not in shown
        assert "--hf-token '<redacted>'" in shown
        assert _text(screen, "#run-verdict").endswith("done \\x1b[2J")
        table = screen.query_one("#run-processes", DataTable)
        assert str(table.get_row_at(0)[1]) == "[link=https://example.com]x[/link]"


def test_tui_help_names_run_reports() -> None:
    shown = CliRunner().invoke(cli, ["tui", "--help"])
    assert shown.exit_code == 0
    assert "Run view" in shown.output
    assert "envsnap tui runs/train.yaml" in shown.output


# ---------------------------------------------------------------------------- series


def test_series_statistics_and_unread_samples() -> None:
    ticks = (
        Tick(t_s=1.0, cpu_percent=50.0, rss_bytes=1, threads=1, gpus=(GpuTick(vendor="amd", index=1),)),
        Tick(
            t_s=2.0,
            cpu_percent=150.0,
            rss_bytes=1,
            threads=1,
            gpus=(GpuTick(vendor="amd", index=1, util_percent=40.0, memory_used_bytes=512 * 1024**2),),
        ),
    )
    report = msgspec.structs.replace(fallback_on_t4(), timeline=ticks)
    cpu, util, memory = timeline_series(report)
    assert cpu.stats == "min 50  max 150  mean 100 %"
    assert (util.label, util.values, util.missing) == ("amd 1 util", (40.0,), 1)
    assert util.stats == "min 40  max 40  mean 40 % (1 unread)"
    assert memory.stats == "min 512.0  max 512.0  mean 512.0 MiB (1 unread)"


@pytest.mark.parametrize(("count", "width"), [(12, 27), (12, 109), (3600, 80), (81, 80), (5, 5), (2, 7)])
def test_columns_match_textual_sparkline_buckets(count: int, width: int) -> None:
    seen: list[list[int]] = []

    def record(partition: Any) -> float:
        seen.append(list(partition))
        return float(partition[0])

    spark = SparklineRenderable(list(range(count)), width=width, summary_function=record)
    Console(file=io.StringIO(), width=width).print(spark)
    assert seen == [list(bucket) for bucket in columns(count, width)]


def test_window_marks_cover_the_samples_inside_windows() -> None:
    window = Window(kind="cpu-fallback-suspected", start_s=2.0, end_s=12.0, cpu_percent_mean=99.0)
    times = tuple(float(t) for t in range(1, 13))
    assert window_marks(times, (window,), 12) == [None, None] + ["cpu-fallback-suspected"] * 10
    assert window_marks(times, (), 6) == [None] * 6


# ---------------------------------------------------------------------------- screenshots


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_run_view_svg(
    snap_compare: SnapCompare,
    make_app: AppFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
) -> None:
    monkeypatch.chdir(tmp_path)  # the title shows the path as given: "run.yaml"
    save_run_report(fallback_on_t4(), tmp_path / "run.yaml")
    app = make_app(snapshot_path=Path("run.yaml"))

    async def run_before(pilot: Pilot[Any]) -> None:
        await _run_screen(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
