"""The Checks tab: the rules' findings, errors first, each with its evidence and the fix.

Findings are attached to the snapshot by the collection worker (``api.with_findings``), so this
pane only renders ``snapshot.findings``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import HorizontalScroll, Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from envsnap.tui.panes.deferred import DeferredPane

if TYPE_CHECKING:
    from envsnap.snapshot.model import Finding, Snapshot

_SEVERITIES = (("error", "✖", "$error"), ("warning", "▲", "$warning"), ("info", "ℹ", "$accent"))


_COMMAND = re.compile(r"`([^`]*\s[^`]*)`")
"""A command in a fix: a backticked span with a space in it (`CUDA_HOME` is a name, not a command)."""


def fix_commands(fix: str) -> list[str]:
    """The shell commands a fix names, in order: ``sudo nvidia-smi -pm 1``."""
    return [match.group(1).strip() for match in _COMMAND.finditer(fix) if match.group(1).strip()]


class FixCommand(Static):
    """One fix command on a line of its own, never wrapped (a wrapped pip command can't be copied)."""

    DEFAULT_CSS = """
    FixCommand { width: auto; height: 1; text-wrap: nowrap; color: $success; }
    """


class FindingView(Vertical):
    """One finding: severity, title and id, evidence lines, fix and source; then its commands."""

    DEFAULT_CSS = """
    FindingView { margin: 0 0 1 0; padding: 0 1; border-left: wide $panel; height: auto; }
    FindingView.-error { border-left: wide $error; }
    FindingView.-warning { border-left: wide $warning; }
    FindingView.-info { border-left: wide $accent; }
    FindingView > Static { height: auto; }
    FindingView > HorizontalScroll { height: auto; scrollbar-size-horizontal: 1; }
    """

    def __init__(self, finding: Finding) -> None:
        super().__init__(classes=f"-{finding.severity}")
        self.finding = finding

    def compose(self) -> ComposeResult:
        yield Static(finding_content(self.finding))
        for command in fix_commands(self.finding.fix):
            # A long command scrolls sideways instead of wrapping; c copies it whole.
            with HorizontalScroll(can_focus=False):
                yield FixCommand(Content.assemble(("$ ", "$text-muted"), command))


def finding_content(finding: Finding) -> Content:
    """The text of a finding card."""
    symbol, style = next((sym, sty) for sev, sym, sty in _SEVERITIES if sev == finding.severity)
    lines = [
        Content.assemble(
            (f"{symbol} {finding.severity.upper()}  ", f"{style} bold"),
            (finding.title, "bold"),
            (f"  [{finding.id}]", "$text-muted"),
        ),
    ]
    for evidence in finding.evidence:
        lines.append(
            Content.assemble(("  ", ""), (evidence.path, "$text-muted"), " = ", _value(evidence.value))
        )
    lines.append(Content.assemble(("fix: ", "$success bold"), finding.fix))
    if finding.source:
        lines.append(Content.styled(f"source: {finding.source}", "$text-muted"))
    return Content("\n").join(lines)


def _value(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or "[]"
    return "null" if value is None else str(value)


class FindingsList(VerticalScroll):
    """The scrolling list of finding cards; recomposed when the snapshot changes."""

    snapshot: reactive[Snapshot | None] = reactive(None, recompose=True)

    def compose(self) -> ComposeResult:
        snapshot = self.snapshot
        if snapshot is None:
            yield Static(Content.styled("Waiting for the snapshot…", "$text-muted"), id="checks-empty")
            return
        findings = list(snapshot.findings or ())
        if not findings:
            yield Static(
                Content.assemble(
                    ("● No findings. ", "$success bold"),
                    ("The rules found nothing wrong with this stack.", "$text-muted"),
                ),
                id="checks-empty",
            )
            return
        yield Static(summary_line(findings), id="checks-summary")
        for severity, _, _ in _SEVERITIES:
            for finding in findings:
                if finding.severity == severity:
                    yield FindingView(finding)


class ChecksPane(DeferredPane):
    """Findings grouped by severity, or an empty state that says why there are none."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("c", "copy_fix", "Copy fix")]

    snapshot: reactive[Snapshot | None] = reactive(None)

    def __init__(self) -> None:
        super().__init__("Checks", id="checks")

    def content(self) -> Iterable[Widget]:
        yield FindingsList(id="checks-body")

    def watch_snapshot(self) -> None:
        self.show()

    def show(self) -> None:
        if self.built:
            self.query_one(FindingsList).snapshot = self.snapshot

    def action_copy_fix(self) -> None:
        """Copy a fix command: the first one of the findings from the top of the scrolled view down."""
        if not self.built:
            return
        body = self.query_one(FindingsList)
        views = list(body.query(FindingView))
        top = body.scroll_offset.y
        # Cards from the first one that starts in view (scroll to choose), then on down.
        shown = [v for v in views if v.virtual_region.y >= top] or views[-1:]
        view = next((v for v in shown if fix_commands(v.finding.fix)), None)
        if view is None:
            self.notify("No fix command among the findings on screen.", severity="warning")
            return
        command = fix_commands(view.finding.fix)[0]
        self.app.copy_to_clipboard(command)
        self.notify(command, title=f"Copied the fix of {view.finding.id}", markup=False)


def summary_line(findings: Iterable[Finding]) -> Content:
    """``2 errors · 1 warning · 0 info``."""
    items = list(findings)
    parts = []
    for severity, symbol, style in _SEVERITIES:
        count = sum(1 for f in items if f.severity == severity)
        parts.append(
            Content.styled(f"{symbol} {count} {severity}", f"{style} bold" if count else "$text-muted")
        )
    return Content("  ·  ").join(parts)
