"""The audit report for people (Rich text grouped by layer), for programs (JSON) and for tickets (Markdown).

Every string from the project or the snapshot (paths, code lines, package names) is untrusted:
it goes through ``safe_text.printable``/``one_line`` before a terminal sees it, Rich markup in it
is never interpreted (Text objects, not markup strings), and the Markdown escapes table pipes,
backticks and HTML. The JSON keys are the model's (``envsnap.audit.model.AuditReport``) and are
API, documented in docs/usage/audit.md.
"""

from __future__ import annotations

import re

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from envsnap.audit.model import LAYERS, AuditReport, Finding, HipifyInventory, RollUpRow
from envsnap.snapshot.safe_text import md_code, md_text, one_line, printable

RISK_STYLES = {"higher": "bold red", "moderate": "yellow", "lower": "green"}
MARKS = {"higher": "✗", "moderate": "!", "lower": "✓"}
HEADINGS = {
    "framework": "Framework",
    "packages": "Packages",
    "extensions": "Extensions",
    "source": "Source",
    "artifacts": "Artifacts",
}
_CODE = re.compile(r"`([^`]+)`")


def _with_code(text: str) -> Text:
    out = Text()
    last = 0
    for match in _CODE.finditer(text):
        out.append(text[last : match.start()])
        out.append(match.group(1), style="bold")
        last = match.end()
    out.append(text[last:])
    return out


def headline(report: AuditReport) -> Text:
    """``Verdict for rocm:gfx942: HIGHER RISK``."""
    risk = report.verdict.risk
    line = Text("Verdict for ")
    line.append(one_line(report.target.label), style="bold")
    line.append(": ")
    line.append(f"{risk.upper()} RISK", style=RISK_STYLES[risk])
    return line


def _finding(item: Finding) -> RenderableType:
    head = Text()
    head.append(f"{MARKS[item.risk]} ", style=RISK_STYLES[item.risk])
    head.append(one_line(item.location), style="bold")
    if item.count > 1:
        head.append(f" ×{item.count}", style="bold")
    if item.role != "core":
        head.append(f" [{item.role}, not counted]", style="dim")
    head.append("  ")
    head.append(one_line(item.code), style="dim")
    body = Text()
    body.append(f"{item.effort} effort · {item.risk} risk", style=RISK_STYLES[item.risk])
    body.append(f" [{item.rule}] ", style="dim")
    body.append(printable(item.meaning))
    parts: list[RenderableType] = [head, Padding(body, (0, 0, 0, 4))]
    if item.replacement:
        parts.append(Padding(Text("→ ").append_text(_with_code(printable(item.replacement))), (0, 0, 0, 4)))
    return Group(*parts)


def _rollup_rows(title: str, rows: tuple[RollUpRow, ...], more: int) -> list[RenderableType]:
    if not rows:
        return []
    parts: list[RenderableType] = [Text(title, style="bold")]
    width = max(len(one_line(row.name)) for row in rows)
    for row in rows:
        line = Text("  ")
        line.append(f"{MARKS[row.risk]} ", style=RISK_STYLES[row.risk])
        line.append(one_line(row.name).ljust(width), style="bold")
        line.append(f"  {row.count:>5}  ")
        line.append(one_line(row.rule) if row.rule != row.name else "", style="dim")
        line.append(f"  e.g. {one_line(row.example)}")
        parts.append(line)
    if more:
        parts.append(Text(f"  … and {more} more", style="dim"))
    return parts


def rollup_lines(report: AuditReport) -> list[RenderableType]:
    """Support evidence, what stays CUDA-only, the roll-up tables and what was not counted."""
    parts: list[RenderableType] = []
    verdict = report.verdict
    for line in verdict.supported[1:]:
        parts.append(Text("  ✓ also: ", style="green").append(printable(line)))
    for line in verdict.cuda_only:
        parts.append(Text("  ✗ stays CUDA-only: ", style="yellow").append(printable(line)))
    rollup = report.rollup
    if rollup.components or rollup.blockers:
        parts.append(Text(""))
        parts.append(Text("What it takes, by component and by kind", style="bold underline"))
        parts.extend(_rollup_rows("By component", rollup.components, rollup.more_components))
        parts.extend(_rollup_rows("By kind of blocker", rollup.blockers, rollup.more_blockers))
    if report.not_counted:
        parts.append(
            Text(
                f"  {report.not_counted} findings in tests, examples, benchmarks, docs or vendored code are "
                "listed, not counted (--include-tests counts them)",
                style="dim",
            )
        )
    if report.hipify is not None:
        parts.extend(hipify_lines(report.hipify))
    return parts


MAX_MAPPED_SHOWN = 12
"""Mapped APIs named in the text report (all of them are in --json and the Markdown ticket)."""
MAX_PLACES_SHOWN = 5


def hipify_summary(inventory: HipifyInventory) -> str:
    """``14 CUDA APIs used, 10 map to HIP (hipify), 4 have no HIP equivalent: a, b, c``."""
    blocked = [api.name for api in inventory.apis if api.status == "unsupported"]
    text = (
        f"{inventory.used} CUDA API{'s' if inventory.used != 1 else ''} used, {inventory.mapped} map to HIP "
        f"(hipify), {inventory.unsupported} ha{'ve' if inventory.unsupported != 1 else 's'} no HIP equivalent"
    )
    text += (": " + ", ".join(blocked)) if blocked else ""
    if inventory.deprecated:
        text += f"; {inventory.deprecated} map to a HIP API marked deprecated"
    return text


def hipify_lines(inventory: HipifyInventory) -> list[RenderableType]:
    """The HIPIFY inventory: the summary, each API with no HIP equivalent and where it is called, the rest."""
    parts: list[RenderableType] = [
        Text(""),
        Text("HIPIFY inventory (CUDA → HIP, from HIPIFY's tables)", style="bold underline"),
        Text("  ").append(one_line(hipify_summary(inventory))),
    ]
    for api in inventory.apis:
        if api.status != "unsupported":
            continue
        line = Text("  ")
        line.append("✗ ", style=RISK_STYLES["higher"])
        line.append(one_line(api.name), style="bold")
        line.append(f" ({one_line(api.library)}) ×{api.count}  ", style="dim")
        more = f" … +{len(api.where) - MAX_PLACES_SHOWN}" if len(api.where) > MAX_PLACES_SHOWN else ""
        line.append(one_line(", ".join(api.where[:MAX_PLACES_SHOWN]) + more))
        parts.append(line)
    mapped = [api for api in inventory.apis if api.status != "unsupported"]
    if mapped:
        shown = ", ".join(
            f"{api.name} → {api.hip}" + (" (deprecated in HIP)" if api.status == "deprecated" else "")
            for api in mapped[:MAX_MAPPED_SHOWN]
        )
        more = f" … and {len(mapped) - MAX_MAPPED_SHOWN} more" if len(mapped) > MAX_MAPPED_SHOWN else ""
        parts.append(Text("  ✓ maps: ", style="green").append(one_line(shown + more), style=""))
    if inventory.unknown:
        parts.append(
            Text(
                "  not in HIPIFY's tables (project helpers or other libraries): "
                + one_line(", ".join(inventory.unknown)),
                style="dim",
            )
        )
    return parts


def render_audit(report: AuditReport, *, show_fine: bool = False, top: int = 10) -> RenderableType:
    """The text report: verdict and reasons, the roll-up, findings by layer, the checklist, what was scanned.

    Findings that need no change (effort none) are counted per layer, listed only with ``show_fine``.
    The roll-up comes first: on a large tree it is the screenful that says where the work is.
    """
    del top  # the roll-up was cut to --top rows when the report was made
    parts: list[RenderableType] = [headline(report)]
    context = []
    if report.project:
        context.append(f"project {one_line(report.project)}")
    if report.environment:
        context.append(f"environment {one_line(report.environment)}")
    if report.target.devices:
        context.append("target devices " + one_line(", ".join(report.target.devices)))
    if context:
        parts.append(Text(" · ".join(context), style="dim"))
    for reason in report.verdict.reasons:
        parts.append(Text("  • ").append(printable(reason)))
    parts.extend(rollup_lines(report))
    for layer in LAYERS:
        items = [f for f in report.findings if f.layer == layer]
        if not items:
            continue
        fine = [f for f in items if f.effort == "none"]
        shown = items if show_fine else [f for f in items if f.effort != "none"]
        title = f"{HEADINGS[layer]} ({len(items) - len(fine)} to change"
        title += f", {len(fine)} fine as is)" if fine else ")"
        parts.append(Text(""))
        parts.append(Text(title, style="bold underline"))
        parts.extend(_finding(item) for item in shown)
    parts.append(Text(""))
    parts.append(Text("Checklist", style="bold underline"))
    for number, step in enumerate(report.verdict.checklist, 1):
        parts.append(Text(f"  {number}. ").append_text(_with_code(printable(step))))
    parts.append(Text(""))
    parts.append(Text(scanned_line(report), style="dim"))
    return Group(*parts)


def scanned_line(report: AuditReport) -> str:
    """``Scanned 12 files (5 parsed); 1 skipped: a.py (symbolic link, not followed)``."""
    if report.project is None:
        return "No project scanned (environment only)."
    files = "file" if report.files_seen == 1 else "files"
    text = f"Scanned {report.files_seen} {files} ({report.files_parsed} parsed)"
    if report.skipped:
        shown = "; ".join(f"{one_line(s.file)} ({one_line(s.reason)})" for s in report.skipped[:5])
        more = f" and {len(report.skipped) - 5} more" if len(report.skipped) > 5 else ""
        text += f"; {len(report.skipped)} skipped: {shown}{more}"
    return text + "."


# ---------------------------------------------------------------------------- markdown


def _md(text: str) -> str:
    """A Markdown table cell (safe_text.md_text: the one helper every Markdown writer uses)."""
    return md_text(text)


def _md_code(text: str) -> str:
    """Inline code that no backtick run in ``text`` can close early (safe_text.md_code)."""
    return md_code(text)


def audit_markdown(report: AuditReport) -> str:
    """The report as a Markdown migration ticket."""
    lines = [
        f"# Migration audit: {_md(report.project or 'environment')} → {_md(report.target.label)}",
        "",
        f"**Verdict: {report.verdict.risk} risk**",
        "",
    ]
    if report.environment:
        lines += [f"Environment: {_md(report.environment)}", ""]
    lines += ["## Why", ""] + [f"- {_md(reason)}" for reason in report.verdict.reasons] + [""]
    if report.verdict.supported:
        lines += ["## Already supported", ""] + [f"- {_md(line)}" for line in report.verdict.supported]
        lines += [f"- stays CUDA-only: {_md(line)}" for line in report.verdict.cuda_only] + [""]
    for title, rows, more in (
        ("By component", report.rollup.components, report.rollup.more_components),
        ("By kind of blocker", report.rollup.blockers, report.rollup.more_blockers),
    ):
        if not rows:
            continue
        lines += [f"## {title}", "", "| | Findings | Worst | Example |", "|---|---|---|---|"]
        lines += [
            f"| {_md(r.name)} | {r.count} | {r.risk} ({_md(r.rule)}) | {_md(r.example)} |" for r in rows
        ]
        lines += (["", f"_and {more} more_"] if more else []) + [""]
    if report.not_counted:
        lines += [
            f"_{report.not_counted} findings in tests, examples, benchmarks, docs or vendored code are "
            "listed, not counted._",
            "",
        ]
    if report.hipify is not None:
        lines += _hipify_markdown(report.hipify)
    for layer in LAYERS:
        items = [f for f in report.findings if f.layer == layer]
        if not items:
            continue
        lines += [
            f"## {HEADINGS[layer]}",
            "",
            "| Where | Code | On the target | Effort | Risk | Replacement |",
            "|---|---|---|---|---|---|",
        ]
        for f in items:
            where = (
                f.location
                + (f" ×{f.count}" if f.count > 1 else "")
                + ("" if f.role == "core" else f" [{f.role}]")
            )
            lines.append(
                f"| {_md(where)} | {_md_code(f.code)} | {_md(f.meaning)} | {f.effort} | "
                f"{f.risk} | {_md(f.replacement)} |"
            )
        lines.append("")
    lines += ["## Checklist", ""] + [f"- [ ] {_md(step)}" for step in report.verdict.checklist] + [""]
    lines.append(f"_{_md(scanned_line(report))}_")
    return "\n".join(lines) + "\n"


def _hipify_markdown(inventory: HipifyInventory) -> list[str]:
    """The inventory as a ticket section: the summary line, then one table row per CUDA API."""
    lines = [
        "## HIPIFY inventory",
        "",
        _md(hipify_summary(inventory)) + ".",
        "",
        "| CUDA API | Library | HIP | Calls | Where |",
        "|---|---|---|---|---|",
    ]
    for api in inventory.apis:
        hip = "**none**" if api.hip is None else _md(api.hip)
        hip += " (deprecated)" if api.status == "deprecated" else ""
        lines.append(
            f"| {_md_code(api.name)} | {_md(api.library)} | {hip} | {api.count} | "
            f"{_md(', '.join(api.where[:3]))} |"
        )
    if inventory.unknown:
        lines += ["", "_Not in HIPIFY's tables: " + _md(", ".join(inventory.unknown)) + "_"]
    lines += ["", "Sources: " + ", ".join(_md(url) for url in inventory.sources), ""]
    return lines
