"""The Checks tab: the rules' findings, errors first, each with its evidence and the fix.

Findings are attached to the snapshot by the collection worker (``api.with_findings``), so this
pane only renders ``snapshot.findings``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from envsnap.tui.panes.deferred import DeferredPane

if TYPE_CHECKING:
    from envsnap.snapshot.model import Finding, Snapshot

_SEVERITIES = (("error", "✖", "$error"), ("warning", "▲", "$warning"), ("info", "ℹ", "$accent"))


class FindingView(Static):
    """One finding: severity, title and id, evidence lines, fix and source."""

    DEFAULT_CSS = """
    FindingView { margin: 0 0 1 0; padding: 0 1; border-left: wide $panel; height: auto; }
    FindingView.-error { border-left: wide $error; }
    FindingView.-warning { border-left: wide $warning; }
    FindingView.-info { border-left: wide $accent; }
    """

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding_content(finding), classes=f"-{finding.severity}")


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
