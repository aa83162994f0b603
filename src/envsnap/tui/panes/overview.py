"""The Overview tab: what this machine runs, layer by layer, and whether each layer is healthy.

Rows come from ``tui.health`` (pure); this pane only lays them out. Before the snapshot arrives
the rows show each probe's progress, so the first frame is useful while slow probes still run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static, TabPane

from envsnap.tui.overview_rows import Badge, LayerRow, layer_rows

if TYPE_CHECKING:
    from envsnap.snapshot.model import ProbeRun, Snapshot

BADGE_TEXT: dict[Badge, str] = {
    "ok": "● ok",
    "warning": "▲ warn",
    "error": "✖ error",
    "absent": "○ n/a",
    "loading": "… wait",
}
"""Badges carry a symbol and a word, so they read without color (NO_COLOR, monochrome)."""


_BADGE_STYLE: dict[Badge, str] = {
    "ok": "$success bold",
    "warning": "$warning bold",
    "error": "$error bold",
    "absent": "$text-muted bold",
    "loading": "$text-muted bold",
}
_BADGE_WIDTH = 9
_LABEL_WIDTH = 13


class LayerTable(Widget):
    """All Overview rows in one widget: badge, layer name, then the wrapped summary and reason.

    One widget instead of four per row keeps the screen's first frame quick; wrapping is done
    here so continuation lines stay indented under the summary.
    """

    DEFAULT_CSS = """
    LayerTable { height: auto; }
    """

    rows: reactive[tuple[LayerRow, ...]] = reactive((), layout=True)

    def render(self) -> Content:
        return Content("\n").join(self.lines(max(self.content_size.width, 40)))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(max(width, 40)))

    def lines(self, width: int) -> list[Content]:
        """The table's lines at a given width."""
        out: list[Content] = []
        indent = Content(" " * (_BADGE_WIDTH + _LABEL_WIDTH))
        for row in self.rows:
            head = Content.assemble(
                (f"{BADGE_TEXT[row.badge]:<{_BADGE_WIDTH}}", _BADGE_STYLE[row.badge]),
                (f"{row.label:<{_LABEL_WIDTH}}", "bold"),
            )
            for number, line in enumerate(row_text(row).wrap(width - _BADGE_WIDTH - _LABEL_WIDTH)):
                out.append((head if number == 0 else indent) + line)
        return out


def row_text(row: LayerRow) -> Content:
    """Summary, then the reason: inline for an absent layer, on its own line for a problem."""
    text = Content(row.summary)
    if not row.reason or row.badge == "ok" or row.reason == row.summary:  # not "not installed: not installed"
        return text
    if row.badge in ("absent", "loading"):
        return text + Content.styled(f": {row.reason}", "$text-muted")
    style = "$error" if row.badge == "error" else "$warning"
    return text + Content.assemble("\n", ("↳ ", "$text-muted"), (row.reason, style))


class OverviewPane(TabPane):
    """Layers of the stack with badges, the fingerprint and a findings count.

    The widgets are composed once and updated in place: probe progress arrives a dozen times
    during a collection, and recomposing forty widgets each time would be wasted work.
    """

    snapshot: reactive[Snapshot | None] = reactive(None)
    probe_runs: reactive[Mapping[str, ProbeRun]] = reactive(dict)
    load_error: reactive[str | None] = reactive(None)
    source: reactive[str] = reactive("")
    """Where the data comes from: "live · this machine" or the opened file."""
    partial: reactive[Snapshot | None] = reactive(None, repaint=False)
    """The sections probed so far (live, before the snapshot is complete); the layer table redraws."""

    def __init__(self) -> None:
        super().__init__("Overview", id="overview")

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="overview-body"):
            yield Static(id="overview-source")
            yield Static(id="overview-error")
            yield LayerTable(id="overview-layers")
            yield Static(id="overview-fingerprint")
            yield Static(id="overview-findings")

    def on_mount(self) -> None:
        self._show()

    def watch_snapshot(self) -> None:
        self._show()

    def watch_probe_runs(self) -> None:
        self._show()

    def watch_partial(self) -> None:
        self._show()

    def watch_load_error(self) -> None:
        self._show()

    def watch_source(self) -> None:
        if self.is_mounted:
            self.query_one("#overview-source", Static).update(Content.styled(self.source, "$text-muted"))

    def _show(self) -> None:
        if not self.is_mounted:
            return
        self.watch_source()
        error = self.query_one("#overview-error", Static)
        error.display = self.load_error is not None
        if self.load_error is not None:
            error.update(Content.assemble(("✖ cannot open snapshot: ", "$error bold"), self.load_error))
        table = self.query_one(LayerTable)
        table.display = self.load_error is None
        table.rows = layer_rows(self.snapshot, self.probe_runs, self.partial)
        snapshot = self.snapshot
        fingerprint = self.query_one("#overview-fingerprint", Static)
        findings = self.query_one("#overview-findings", Static)
        fingerprint.display = findings.display = snapshot is not None and self.load_error is None
        if snapshot is not None:
            fingerprint.update(
                Content.assemble(("Fingerprint  ", "bold"), _short_fingerprint(snapshot.fingerprint))
            )
            findings.update(_findings_line(snapshot))


def _short_fingerprint(fingerprint: str | None) -> str:
    # 16 hex digits identify an environment among any realistic number of snapshots and fit 80 columns.
    return "–" if fingerprint is None else fingerprint[:23] + "…"


def _findings_line(snapshot: Snapshot) -> Content:
    findings = snapshot.findings or ()
    if not findings:
        return Content.assemble(("Findings     ", "bold"), ("none", "$success"))
    counts = {
        severity: sum(1 for f in findings if f.severity == severity)
        for severity in ("error", "warning", "info")
    }
    styles = {"error": "$error bold", "warning": "$warning", "info": "$text-muted"}
    parts: list[Content | str | tuple[str, str]] = [("Findings     ", "bold")]
    for severity, count in counts.items():
        if count:
            parts += [
                (f"{count} {severity}{'s' if count > 1 and severity != 'info' else ''}", styles[severity]),
                "  ",
            ]
    parts.append(("details: press 4 (Checks tab)", "$text-muted"))
    return Content.assemble(*parts)
