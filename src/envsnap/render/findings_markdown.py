"""``envsnap check --format markdown``: a diagnosis to paste as a reply in an issue thread.

One screen: a verdict line, then per finding its title, at most three pieces of evidence, the fix
(commands stay code) and the rule's source; then what the report held and the envsnap version, so
a reader can rerun it. Every value from the snapshot is made inert (the same escaping as the diff
report): a package name cannot become a link, an image or HTML in someone else's issue thread.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from envsnap._version import __version__
from envsnap.render.findings import summary_line
from envsnap.snapshot.model import Finding, Snapshot
from envsnap.snapshot.safe_text import md_in_backticks as _code
from envsnap.snapshot.safe_text import md_text as _md

MAX_FINDINGS = 8
"""Findings listed in full; more are counted (the reply must fit one screen)."""
MAX_EVIDENCE = 3
MAX_VALUE = 160
MAX_TITLE = 200
MAX_FIX = 600
_FIX_CODE = re.compile(r"`([^`]+)`")
_ICONS = {"error": "❌", "warning": "⚠️", "info": "ℹ️"}


def _value(value: Any, limit: int = MAX_VALUE) -> str:
    text = ", ".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _prose(text: str) -> str:
    """Prose between code spans, escaped; _md makes it one line, which would drop its edge spaces
    (``check `nvidia-smi``` became ``check`nvidia-smi```)."""
    if not text.strip():
        return " " if text else ""
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() else ""
    return f"{lead}{_md(text)}{trail}"


def _fix(text: str) -> str:
    """The fix with its backticked commands kept as code spans and the prose escaped."""
    parts, last = [], 0
    for match in _FIX_CODE.finditer(text):
        parts.append(_prose(text[last : match.start()]))
        parts.append(f"`{_code(match.group(1), in_table=False)}`")
        last = match.end()
    parts.append(_prose(text[last:]))
    return "".join(parts)


def findings_markdown(findings: Sequence[Finding], snapshot: Snapshot) -> str:
    """The findings on ``snapshot`` as a short Markdown reply."""
    lines = [f"### envsnap check: {_md(summary_line(findings))}", ""]
    for item in findings[:MAX_FINDINGS]:
        title = _md(_value(item.title, MAX_TITLE))
        lines.append(f"- {_ICONS.get(item.severity, '')} **{title}** (`{_code(item.id, in_table=False)}`)")
        for evidence in item.evidence[:MAX_EVIDENCE]:
            lines.append(f"  - `{_code(evidence.path, in_table=False)}` = {_md(_value(evidence.value))}")
        lines.append(f"  - **Fix:** {_fix(_value(item.fix, MAX_FIX))}")
        if item.source:
            lines.append(f"  - Source: <{_code(item.source, in_table=False)}>")
    if len(findings) > MAX_FINDINGS:
        lines.append(f"- … and {len(findings) - MAX_FINDINGS} more (`envsnap check` lists them all)")
    origin = snapshot.meta.origin
    lines.append("")
    read = ""
    if origin is not None and origin.kind == "import":
        read = f"Read from the report: {_md(', '.join(origin.sections or (origin.format or 'import',)))}. "
        if origin.partial:
            gone = _md(", ".join(origin.missing or ()))
            read += f"The paste is cut off (no {gone}): what it lacks was not judged. "
    lines.append(f"<sub>{read}envsnap {_md(__version__)}</sub>")
    return "\n".join(lines) + "\n"
