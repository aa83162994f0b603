"""Findings for people (Rich text grouped by severity) and for programs (stable JSON).

The text report puts errors first, and for each finding says what is wrong (title), why envsnap
thinks so (the snapshot values it rests on), what to do (commands in the fix are highlighted) and
where the rule comes from. The JSON shape is API: ``{"findings": [{"id", "severity", "title",
"evidence", "fix", "source"}], "fingerprint": ...}``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from envsnap.snapshot.json_text import to_json
from envsnap.snapshot.model import Finding
from envsnap.snapshot.safe_text import printable

SEVERITIES = ("error", "warning", "info")
_HEADINGS = {"error": "Errors", "warning": "Warnings", "info": "Info"}
_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_MARKS = {"error": "✗", "warning": "!", "info": "i"}
_CODE = re.compile(r"`([^`]+)`")


def counts(findings: Sequence[Finding]) -> dict[str, int]:
    """Findings per severity, every severity present (zeros included)."""
    tally = dict.fromkeys(SEVERITIES, 0)
    for item in findings:
        tally[item.severity] = tally.get(item.severity, 0) + 1
    return tally


def summary_line(findings: Sequence[Finding], fingerprint: str | None = None) -> str:
    """``2 errors, 1 warning, 0 info · sha256:…`` or ``no findings · sha256:…``."""
    if not findings:
        text = "no findings: nothing wrong with this stack that envsnap checks for"
    else:
        tally = counts(findings)
        parts = [f"{tally['error']} error{'s' if tally['error'] != 1 else ''}"]
        parts.append(f"{tally['warning']} warning{'s' if tally['warning'] != 1 else ''}")
        parts.append(f"{tally['info']} info")
        text = ", ".join(parts)
    return f"{text} · {fingerprint[:19]}" if fingerprint else text


def _with_code(text: str) -> Text:
    """Text with `backticked` commands shown bold, without the backticks."""
    out = Text()
    last = 0
    for match in _CODE.finditer(text):
        out.append(text[last : match.start()])
        out.append(match.group(1), style="bold")
        last = match.end()
    out.append(text[last:])
    return out


def _value(value: Any) -> str:
    if value is None:
        return "null (absent)"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) if value else "[] (empty)"
    return str(value)


def _one(item: Finding) -> RenderableType:
    head = Text()
    head.append(f"{_MARKS[item.severity]} ", style=_STYLES[item.severity])
    head.append(item.id, style=_STYLES[item.severity])
    head.append("  ")
    head.append(printable(item.title))
    details = Table.grid(padding=(0, 1))
    details.add_column(style="dim", no_wrap=True)
    details.add_column(overflow="fold")  # URLs and paths stay whole, folded rather than cut
    for position, evidence in enumerate(item.evidence):
        line = Text(printable(evidence.path), style="dim")
        line.append(" = ")
        line.append(printable(_value(evidence.value)))
        details.add_row("evidence" if position == 0 else "", line)
    details.add_row("fix", _with_code(printable(item.fix)))
    if item.source:
        details.add_row("source", Text(printable(item.source), style="dim underline"))
    return Group(head, Padding(details, (0, 0, 1, 2)))


def render_findings(findings: Sequence[Finding], fingerprint: str | None = None) -> RenderableType:
    """The ``envsnap check`` report: findings grouped by severity, then a summary line."""
    parts: list[RenderableType] = []
    for severity in SEVERITIES:
        group = [f for f in findings if f.severity == severity]
        if not group:
            continue
        parts.append(Text(f"{_HEADINGS[severity]} ({len(group)})", style=f"{_STYLES[severity]} underline"))
        parts.extend(_one(item) for item in group)
    parts.append(Text(summary_line(findings, fingerprint), style="bold" if findings else "green"))
    return Group(*parts)


def findings_data(findings: Sequence[Finding], fingerprint: str | None = None) -> dict[str, Any]:
    """The JSON document of ``envsnap check --json`` as plain data (every key always present)."""
    return {
        "findings": [
            {
                "id": item.id,
                "severity": item.severity,
                "title": item.title,
                "evidence": [{"path": e.path, "value": e.value} for e in item.evidence],
                "fix": item.fix,
                "source": item.source,
            }
            for item in findings
        ],
        "fingerprint": fingerprint,
    }


def findings_json(findings: Sequence[Finding], fingerprint: str | None = None) -> str:
    """``findings_data`` as pretty JSON."""
    return to_json(findings_data(findings, fingerprint))
