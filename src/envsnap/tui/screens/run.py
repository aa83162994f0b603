"""The Run view: one ``envsnap run``/``watch`` report, read-only — verdict, timeline, processes.

``envsnap tui REPORT.yaml`` shows this screen instead of the snapshot tabs (the app's file worker
tells the two kinds apart, documents.py). The header is the verdict as a badge with its
sentence, evidence and thresholds, so the verdict can be checked rather than trusted; the timeline
is the sampled series the verdict was computed from, as Sparklines (percentages on a fixed 0–100
scale) with their min, max and mean, and a strip under them marking the suspicious windows. All
numbers come from ``tui.run_series`` (pure); every string from the file is shown as text (Content,
never markup) with terminal control characters escaped.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Sparkline, Static

from envsnap.snapshot.safe_text import one_line, printable
from envsnap.tui.format import UNKNOWN, human_bytes
from envsnap.tui.run_series import (
    WINDOW_MARKS,
    Series,
    command_line,
    outcome_line,
    seconds,
    thresholds_line,
    timeline_heading,
    timeline_series,
    verdict_badge,
    window_marks,
)
from envsnap.tui.widgets.scaled_sparkline import ScaledSparkline

if TYPE_CHECKING:
    from envsnap.live.run_report import RunReport, Window


class TimeAxis(Widget):
    """The first and last sample times at the two ends of the sparkline column."""

    DEFAULT_CSS = """
    TimeAxis { height: 1; width: 1fr; color: $text-muted; }
    """

    def __init__(self, first_s: float, last_s: float) -> None:
        super().__init__()
        self.first_s = first_s
        self.last_s = last_s

    def render(self) -> Content:
        left, right = seconds(self.first_s), seconds(self.last_s)
        gap = max(self.content_size.width - len(left) - len(right), 1)
        return Content(f"{left}{' ' * gap}{right}")


class WindowStrip(Widget):
    """Marks, column by column under the sparklines, the samples inside a suspicious window."""

    DEFAULT_CSS = """
    WindowStrip { height: 1; width: 1fr; }
    """

    def __init__(self, times_s: tuple[float, ...], windows: tuple[Window, ...]) -> None:
        super().__init__()
        self.times_s = times_s
        self.windows = windows

    def render(self) -> Content:
        parts: list[tuple[str, str]] = []
        for kind in window_marks(self.times_s, self.windows, self.content_size.width):
            parts.append(("─", "$text-muted") if kind is None else WINDOW_MARKS[kind])
        return Content.assemble(*parts)


def _facts(rows: list[tuple[str, Content]], grid_id: str) -> Grid:
    """A label column and a wrapping value column (continuation lines stay under the value)."""
    cells: list[Static] = []
    for label, value in rows:
        cells += [Static(Content.styled(label, "bold")), Static(value)]
    return Grid(*cells, id=grid_id, classes="run-facts")


def _header(report: RunReport) -> list[tuple[str, Content]]:
    started, ended = one_line(report.started_at), one_line(report.ended_at)
    attribution = Content(report.attribution)
    if report.attribution_reason:
        attribution += Content.styled(f": {one_line(report.attribution_reason)}", "$text-muted")
    return [
        ("Command", Content(command_line(report))),
        ("Run", Content(outcome_line(report))),
        ("Time", Content(f"{started} → {ended} · {seconds(report.duration_s)}")),
        ("Thresholds", Content(thresholds_line(report))),
        ("Attribution", attribution),
    ]


def _verdict(report: RunReport) -> Content:
    badge, color = verdict_badge(report.verdict)
    return Content.assemble((f" {badge} ", f"{color} reverse bold"), "\n", printable(report.summary))


def _evidence(report: RunReport) -> list[tuple[str, Content]]:
    if not report.evidence:
        return [("·", Content.styled("none recorded", "$text-muted"))]
    return [("·", Content(printable(line))) for line in report.evidence]


def _windows(report: RunReport) -> Content:
    windows = report.windows or ()
    if not windows:
        return Content.styled("none: no suspicious state lasted the sustain window", "$text-muted")
    lines = []
    for window in windows:
        badge, color = verdict_badge(window.kind)
        gpu = "" if window.gpu_util_percent_max is None else f" · GPU max {window.gpu_util_percent_max:g}%"
        lines.append(
            Content.assemble(
                (f"{badge:<25}", f"{color} bold"),
                f"{window.start_s:g} s → {window.end_s:g} s ({seconds(window.end_s - window.start_s)})"
                f" · CPU mean {window.cpu_percent_mean:g}%{gpu}",
            )
        )
    return Content("\n").join(lines)


def _cell(value: float | int | None, spec: str = "g") -> Text:
    return Text(UNKNOWN if value is None else format(value, spec), justify="right")


class RunScreen(Screen[None]):
    """A read-only run report: header, timeline sparklines, windows and processes."""

    DEFAULT_CSS = """
    RunScreen #run-body { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    RunScreen #run-title { padding: 1 0 0 0; }
    RunScreen #run-verdict, RunScreen #run-windows { height: auto; margin-bottom: 1; }
    RunScreen .run-facts { grid-size: 2; grid-rows: auto; height: auto; margin-bottom: 1; }
    RunScreen .run-facts > Static { height: auto; }
    RunScreen #run-header { grid-columns: 13 1fr; }
    RunScreen #run-evidence { grid-columns: 2 1fr; }
    RunScreen #run-evidence > Static { color: $text; }
    RunScreen .run-heading { text-style: bold; color: $accent; }
    RunScreen .run-series { height: 1; }
    RunScreen .run-label { width: 16; }
    RunScreen .run-stats { width: 34; padding-left: 1; color: $text-muted; }
    RunScreen Sparkline { width: 1fr; }
    RunScreen #run-processes { height: auto; margin-bottom: 1; }
    """

    report: reactive[RunReport | None] = reactive(None, recompose=True)
    """The report on show; setting it (a re-read of the file) redraws the screen."""

    def __init__(self, report: RunReport, path: Path) -> None:
        super().__init__(id="run-screen")
        self.path = path
        self.set_reactive(RunScreen.report, report)

    def compose(self) -> ComposeResult:
        report = self.report
        if report is None:
            return
        with VerticalScroll(id="run-body"):
            yield Static(
                Content.assemble(
                    ("Run report  ", "bold"),
                    (f"{printable(str(self.path))} · read-only · {report.samples} samples", "$text-muted"),
                ),
                id="run-title",
            )
            yield Static(_verdict(report), id="run-verdict")
            yield _facts(_header(report), "run-header")
            yield Static(Content("Evidence"), classes="run-heading")
            yield _facts(_evidence(report), "run-evidence")
            yield Static(Content(timeline_heading(report)), classes="run-heading")
            yield from self._timeline(report)
            yield Static(Content("Suspicious windows"), classes="run-heading")
            yield Static(_windows(report), id="run-windows")
            yield Static(Content(f"Processes seen ({len(report.processes)})"), classes="run-heading")
            yield self._processes(report)
        yield Footer()

    def _timeline(self, report: RunReport) -> ComposeResult:
        ticks = report.timeline
        if not ticks:
            return
        for number, series in enumerate(timeline_series(report)):
            yield self._series_row(series, number)
        times = tuple(t.t_s for t in ticks)
        windows = report.windows or ()
        with Horizontal(classes="run-series"):
            yield Static(Content("suspicious"), classes="run-label")
            yield WindowStrip(times, windows)
            total = sum(w.end_s - w.start_s for w in windows)
            count = f"{len(windows)} window{'s' if len(windows) != 1 else ''}, {seconds(total)}"
            yield Static(Content(count if windows else "none"), classes="run-stats")
        with Horizontal(classes="run-series", id="run-axis"):
            yield Static("", classes="run-label")
            yield TimeAxis(times[0], times[-1])
            yield Static("", classes="run-stats")

    @staticmethod
    def _series_row(series: Series, number: int) -> Horizontal:
        spark: Sparkline
        if series.unit == "percent":  # on 0–100 % (CPU: up to its peak, 100 = one core), not min..max
            ceiling = max(100.0, *series.values) if series.values else 100.0
            spark = ScaledSparkline(list(series.values), ceiling=ceiling, id=f"run-spark-{number}")
        else:
            spark = Sparkline(list(series.values), id=f"run-spark-{number}")
        return Horizontal(
            Static(Content(series.label), classes="run-label"),
            spark,
            Static(Content(series.stats), classes="run-stats"),
            classes="run-series",
        )

    @staticmethod
    def _processes(report: RunReport) -> DataTable[Text]:
        table: DataTable[Text] = DataTable(id="run-processes", cursor_type="none", zebra_stripes=True)
        table.can_focus = False  # the page scrolls as one; the table is part of it
        for column in ("PID", "name", "first seen s", "last seen s", "max CPU %", "peak RSS"):
            table.add_column(column, key=column)
        for process in report.processes:
            rss = process.rss_max_bytes
            table.add_row(
                _cell(process.pid, "d"),
                Text(one_line(process.name) if process.name else "–"),
                _cell(process.first_seen_s),
                _cell(process.last_seen_s),
                _cell(process.cpu_percent_max, ".1f"),
                Text(UNKNOWN if rss is None else human_bytes(rss), justify="right"),
            )
        return table
