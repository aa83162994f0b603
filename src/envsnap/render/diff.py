"""Diff and fleet reports for people (Rich tables, Markdown for pull requests) and for scripts (JSON).

Reads only what compare/diff.py and fleet/view.py return. Two-way: a table per layer, the layers with breaking
changes first and breaking rows first within each, then a summary line with counts per impact and
the sections one side does not record (not compared). Fleet: one row per differing field with the
majority value and the hosts that deviate from it.
JSON keys are API (docs/usage/snapshot.md):
``{"changes": [{layer, path, kind, old, new, impact}], "summary": {...}}``
and ``{"hosts": [...], "fields": [...], "summary": {...}}``.

Every string from a snapshot (host labels, paths, values) is untrusted. In text it goes into a
``rich.text.Text`` (never parsed as markup) after ``safe_text.one_line`` (no terminal control
characters); in Markdown it is escaped, so a hostname cannot become a link, emphasis or HTML.
Identifiers (paths, URLs, fingerprints) are never cut: only lists are shortened, at item
boundaries; and when stdout is not a terminal, tables are laid out at their natural width, so a
piped report keeps every value on one line.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO, TypeVar

import msgspec
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from envsnap.compare.diff import Rated, summarize
from envsnap.compare.impact import IMPACT_RANK, IMPACTS, LAYERS
from envsnap.fleet.view import ABSENT, UNKNOWN, FleetReport
from envsnap.render.summary import human_bytes
from envsnap.snapshot.json_text import to_json
from envsnap.snapshot.model import Change
from envsnap.snapshot.safe_text import md_in_backticks, md_text, one_line

IMPACT_STYLE = {"breaking": "bold red", "notable": "yellow", "minor": "dim"}
MAX_LIST_CHARS = 160
"""Longer lists (a long Requires-Dist) are shortened at an item boundary in text and Markdown;
single values (URLs, paths) never are, and JSON keeps everything whole."""
MAX_DEVIANTS_SHOWN = 12
MAX_TABLE_ROWS = 2_000
"""Rows one text table shows; the rest are counted under it. Rich lays out about 1,500 rows a
second, so a diff of two 150k-package files took minutes to print that nobody reads in a
terminal. The most severe rows are the ones kept; JSON and Markdown list every change."""
PIPED_WIDTH = 10_000
"""Console width when stdout is not a terminal: wide enough that no table cell wraps or folds."""

_R = TypeVar("_R", bound=Rated)

NotCompared = Sequence[tuple[str, str]]
"""``(section, "old" | "new")`` pairs from ``diff.not_compared``: the side that lacks the section."""


def format_value(path: str, value: Any, *, limit: int = MAX_LIST_CHARS) -> str:
    """A value as one printable line: ``—`` when absent, sizes in GiB, lists comma-separated."""
    if value is None:
        return "—"
    if value is ABSENT:
        return "(absent)"
    if value is UNKNOWN:
        return "(unknown)"
    if value == "":
        return "(not reported)"  # an imported name @ url line has no version
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and path.endswith("_bytes"):
        return human_bytes(value)
    if isinstance(value, (tuple, list)):
        return _format_list(path, value, limit)
    return one_line(str(value))  # one line, whatever the snapshot holds; never cut


def _format_list(path: str, items: Sequence[Any], limit: int) -> str:
    if not items:
        return "(none)"
    shown: list[str] = []
    length = 0
    for item in items:
        text = format_value("", item, limit=limit)
        if shown and length + len(text) + 2 > limit:
            return ", ".join(shown) + f", … and {len(items) - len(shown)} more"
        shown.append(text)
        length += len(text) + 2
    return ", ".join(shown)


def _layer_order(changes: Sequence[Change]) -> list[str]:
    """Layers that have changes: those with breaking changes first, then in the canonical order."""
    present = {change.layer for change in changes}
    worst = {layer: min(IMPACT_RANK[c.impact] for c in changes if c.layer == layer) for layer in present}
    return sorted(present, key=lambda layer: (worst[layer], LAYERS.index(layer) if layer in LAYERS else 99))


def _rows(changes: Sequence[Change], layer: str) -> list[Change]:
    return sorted((c for c in changes if c.layer == layer), key=lambda c: (IMPACT_RANK[c.impact], c.path))


def most_severe(rows: Sequence[_R]) -> tuple[list[int], list[_R]]:
    """(indexes of the rows a text table shows, in order; the rows it leaves out).

    The ``MAX_TABLE_ROWS`` most severe rows are kept, so no breaking change is cut for a minor one.
    """
    if len(rows) <= MAX_TABLE_ROWS:
        return list(range(len(rows))), []
    by_severity = sorted(range(len(rows)), key=lambda i: (IMPACT_RANK[rows[i].impact], i))
    shown = sorted(by_severity[:MAX_TABLE_ROWS])
    return shown, [rows[i] for i in sorted(by_severity[MAX_TABLE_ROWS:])]


def not_shown_line(hidden: Sequence[Rated], noun: str) -> Text:
    """``… and 148,000 more changes in packages not shown (148,000 minor): ...``."""
    counts = summarize(hidden)
    parts = ", ".join(f"{counts[impact]:,} {impact}" for impact in IMPACTS if counts[impact])
    return Text(
        f"… and {len(hidden):,} more {noun} not shown ({parts}): --json or --format markdown lists them all",
        style="yellow",
    )


def summary_line(changes: Sequence[Change], old_label: str, new_label: str) -> str:
    """``2 breaking · 1 notable · 4 minor (7 changes) from A to B``."""
    counts = summarize(changes)
    parts = " · ".join(f"{counts[impact]} {impact}" for impact in IMPACTS)
    noun = "change" if counts["total"] == 1 else "changes"
    return f"{parts} ({counts['total']} {noun}) from {one_line(old_label)} to {one_line(new_label)}"


def not_compared_line(not_compared: NotCompared, old_label: str, new_label: str) -> str | None:
    """``not compared: host, python (absent in b.yaml)``, or None when every section was compared."""
    parts = []
    for side, label in (("old", old_label), ("new", new_label)):
        sections = [section for section, lacking in not_compared if lacking == side]
        if sections:
            parts.append(f"{', '.join(sections)} (absent in {one_line(label)})")
    return f"not compared: {'; '.join(parts)}" if parts else None


def render_changes(
    changes: Sequence[Change], old_label: str, new_label: str, not_compared: NotCompared = ()
) -> RenderableType:
    """Rich tables, one per layer, and the summary line."""
    parts: list[RenderableType] = [Text(f"{one_line(old_label)} → {one_line(new_label)}", style="bold")]
    for layer in _layer_order(changes):
        table = Table(
            title=Text(layer), title_justify="left", title_style="bold", expand=False, show_edge=False
        )
        table.add_column("impact", no_wrap=True)
        table.add_column("", no_wrap=True)
        table.add_column("path", no_wrap=True, overflow="fold")
        table.add_column(Text(one_line(old_label)), overflow="fold")  # a header string would be markup
        table.add_column(Text(one_line(new_label)), overflow="fold")
        rows = _rows(changes, layer)
        shown, hidden = most_severe(rows)
        for change in (rows[i] for i in shown):
            mark = {"added": "+", "removed": "-", "changed": "~"}[change.kind]
            table.add_row(  # Text cells: snapshot values must never be read as Rich markup
                Text(change.impact, style=IMPACT_STYLE[change.impact]),
                Text(mark),
                Text(one_line(change.path)),
                Text(format_value(change.path, change.old)),
                Text(format_value(change.path, change.new)),
            )
        parts.append(Text(""))
        parts.append(table)
        if hidden:
            parts.append(not_shown_line(hidden, f"changes in {layer}"))
    parts.append(Text(""))
    parts.append(Text(summary_line(changes, old_label, new_label), style="bold"))
    skipped = not_compared_line(not_compared, old_label, new_label)
    if skipped:
        parts.append(Text(skipped, style="yellow"))
    return Group(*parts)


def changes_json(
    changes: Sequence[Change],
    old: tuple[str, str | None],
    new: tuple[str, str | None],
    not_compared: NotCompared = (),
) -> dict[str, Any]:
    """The ``--json`` document; ``old``/``new`` are (label, fingerprint)."""
    summary: dict[str, Any] = dict(summarize(changes))
    summary["old"] = {"label": old[0], "fingerprint": old[1]}
    summary["new"] = {"label": new[0], "fingerprint": new[1]}
    summary["not_compared"] = [{"section": section, "absent_in": side} for section, side in not_compared]
    rows = [
        {
            "layer": change.layer,
            "path": change.path,
            "kind": change.kind,
            "old": msgspec.to_builtins(change.old),  # null when added: every key is always there
            "new": msgspec.to_builtins(change.new),
            "impact": change.impact,
        }
        for change in changes
    ]
    return {"changes": rows, "summary": summary}


# Every Markdown writer escapes data with snapshot/safe_text.py's helpers (kept here under the
# names the diff, fleet and findings writers use).
_md = md_text
_code = md_in_backticks


def changes_markdown(
    changes: Sequence[Change], old_label: str, new_label: str, not_compared: NotCompared = ()
) -> str:
    """A Markdown report to paste into a pull request or an issue."""
    heading = f"`{_code(old_label, in_table=False)}` → `{_code(new_label, in_table=False)}`"
    lines = [f"### envsnap diff: {heading}", ""]
    lines.append(f"**{_md(summary_line(changes, old_label, new_label))}**")
    skipped = not_compared_line(not_compared, old_label, new_label)
    if skipped:
        lines += ["", _md(skipped)]
    for layer in _layer_order(changes):
        lines += ["", f"#### {layer}", "", "| impact | path | old | new |", "|---|---|---|---|"]
        for change in _rows(changes, layer):
            old = _md(format_value(change.path, change.old))
            new = _md(format_value(change.path, change.new))
            impact = f"**{change.impact}**" if change.impact == "breaking" else change.impact
            lines.append(f"| {impact} | `{_code(change.path)}` | {old} | {new} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- fleet


def _deviants_text(report: FleetReport, index: int, limit: int | None = MAX_DEVIANTS_SHOWN) -> str:
    field = report.fields[index]
    shown = field.deviants if limit is None else field.deviants[:limit]
    text = ", ".join(
        f"{one_line(report.hosts[i])}: {format_value(field.path, field.values[i])}" for i in shown
    )
    hidden = len(field.deviants) - len(shown)
    return text + (f", … and {hidden} more" if hidden else "")


def _majority_text(report: FleetReport, index: int) -> str:
    """``12.1 (49/50)``; ``(absent) (2/4, tie)`` when another value is held by as many hosts."""
    field = report.fields[index]
    compared = len(report.hosts) - len(field.unknown)
    share = f"{field.majority_count}/{compared}" + (", tie" if field.tie else "")
    return f"{format_value(field.path, field.majority)} ({share})"


def fleet_summary_line(report: FleetReport) -> str:
    """``3 fields differ across 50 hosts; most deviations: gpu-17 (3)``."""
    counts = summarize(report.fields)
    hosts = report.deviating_hosts()
    top = ", ".join(f"{one_line(host)} ({n})" for host, n in list(hosts.items())[:5])
    parts = " · ".join(f"{counts[impact]} {impact}" for impact in IMPACTS)
    noun = "field differs" if len(report.fields) == 1 else "fields differ"
    return f"{len(report.fields)} {noun} across {len(report.hosts)} hosts ({parts}); deviating: {top}"


def fleet_not_compared_line(report: FleetReport) -> str | None:
    """``not compared: packages (absent in gpu-03, gpu-07)``, or None."""
    if not report.not_compared:
        return None
    parts = [
        f"{section} (absent in {', '.join(one_line(report.hosts[i]) for i in hosts)})"
        for section, hosts in report.not_compared
    ]
    return f"not compared: {'; '.join(parts)}"


def render_fleet(report: FleetReport) -> RenderableType:
    """One table of differing fields: majority value and the hosts that deviate."""
    table = Table(expand=False, show_edge=False)
    for name in ("impact", "layer", "path", "majority", "deviating hosts"):
        table.add_column(name, overflow="fold", no_wrap=name in ("impact", "layer", "path"))
    shown, hidden = most_severe(report.fields)
    for index in shown:
        field = report.fields[index]
        table.add_row(
            Text(field.impact, style=IMPACT_STYLE[field.impact]),
            Text(field.layer),
            Text(one_line(field.path)),
            Text(_majority_text(report, index)),
            Text(_deviants_text(report, index)),
        )
    parts: list[RenderableType] = [table]
    if hidden:
        parts.append(not_shown_line(hidden, "differing fields"))
    parts += [Text(""), Text(fleet_summary_line(report), style="bold")]
    skipped = fleet_not_compared_line(report)
    if skipped:
        parts.append(Text(skipped, style="yellow"))
    return Group(*parts)


def _plain(value: Any) -> Any:
    return None if value is ABSENT or value is UNKNOWN else msgspec.to_builtins(value)


def fleet_json(report: FleetReport) -> dict[str, Any]:
    """The ``--json`` document of a fleet comparison.

    ``values`` holds null for hosts without the field; ``absent`` names the hosts that have the
    section but not the field, ``unknown`` those whose snapshot lacks the section (not compared).
    ``majority_absent`` says that the majority is not having the field at all.
    """
    fields = [
        {
            "layer": field.layer,
            "path": field.path,
            "impact": field.impact,
            "majority": _plain(field.majority),
            "majority_absent": field.majority is ABSENT,
            "majority_count": field.majority_count,
            "tie": field.tie,
            "values": {host: _plain(value) for host, value in zip(report.hosts, field.values, strict=True)},
            "deviants": [report.hosts[i] for i in field.deviants],
            "absent": [
                host for host, value in zip(report.hosts, field.values, strict=True) if value is ABSENT
            ],
            "unknown": [report.hosts[i] for i in field.unknown],
        }
        for field in report.fields
    ]
    tally = summarize(report.fields)
    counts: dict[str, Any] = {impact: tally[impact] for impact in IMPACTS}  # no "total": "fields" says it
    summary: dict[str, Any] = {
        **counts,
        "fields": len(report.fields),
        "hosts": len(report.hosts),
        "deviating": report.deviating_hosts(),
        "not_compared": {section: [report.hosts[i] for i in hosts] for section, hosts in report.not_compared},
    }
    return {"hosts": list(report.hosts), "fields": fields, "summary": summary}


def fleet_markdown(report: FleetReport) -> str:
    """The fleet table in Markdown."""
    lines = [
        f"### envsnap fleet diff: {len(report.hosts)} hosts",
        "",
        f"**{_md(fleet_summary_line(report))}**",
        "",
    ]
    skipped = fleet_not_compared_line(report)
    if skipped:
        lines += [_md(skipped), ""]
    lines += ["| impact | path | majority | deviating hosts |", "|---|---|---|---|"]
    for index, field in enumerate(report.fields):
        majority = _md(_majority_text(report, index))
        deviants = _md(_deviants_text(report, index, limit=None))
        lines.append(f"| {field.impact} | `{_code(field.path)}` | {majority} | {deviants} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- entry points for the CLI


def diff_report(
    changes: Sequence[Change],
    labels: Sequence[str],
    fingerprints: Sequence[str | None],
    fmt: str,
    not_compared: NotCompared = (),
) -> str | RenderableType:
    """What ``envsnap diff A B`` prints: text (JSON, Markdown, "no differences: ...") or Rich tables."""
    old, new = (labels[0], fingerprints[0]), (labels[1], fingerprints[1])
    if fmt == "json":
        return to_json(changes_json(changes, old, new, not_compared)) + "\n"
    if not changes:
        same = (
            fingerprints[0]
            if fingerprints[0] == fingerprints[1]
            else f"{fingerprints[0]} ≈ {fingerprints[1]}"
        )
        lines = [f"no differences: {one_line(str(same))}"]
        skipped = not_compared_line(not_compared, labels[0], labels[1])
        if skipped:
            lines.append(skipped)
        if fmt == "text":
            return "".join(f"{line}\n" for line in lines)
        return f"**{_md(lines[0])}**\n" + "".join(f"\n{_md(line)}\n" for line in lines[1:])
    if fmt == "markdown":
        return changes_markdown(changes, labels[0], labels[1], not_compared)
    return render_changes(changes, labels[0], labels[1], not_compared)


def fleet_report(report: FleetReport, fmt: str) -> str | RenderableType:
    """What ``envsnap diff A B C ...`` prints."""
    if fmt == "json":
        return to_json(fleet_json(report)) + "\n"
    if not report.fields:
        fingerprints = sorted({one_line(fp or "?") for fp in report.fingerprints})
        lines = [f"no differences across {len(report.hosts)} snapshots: {', '.join(fingerprints)}"]
        skipped = fleet_not_compared_line(report)
        if skipped:
            lines.append(skipped)
        if fmt == "text":
            return "".join(f"{line}\n" for line in lines)
        return f"**{_md(lines[0])}**\n" + "".join(f"\n{_md(line)}\n" for line in lines[1:])
    if fmt == "markdown":
        return fleet_markdown(report)
    return render_fleet(report)


def emit(output: str | RenderableType, stream: TextIO | None = None) -> None:
    """Write a report: text verbatim, Rich renderables through a console.

    On a terminal, tables fit its width (long values fold rather than being cut). Anywhere else
    (a pipe, a file) they keep their natural width, whatever ``COLUMNS`` says, so no path, URL or
    fingerprint is wrapped or split; trailing padding is stripped, as render/console.py does.
    """
    from envsnap.render.console import print_out

    if isinstance(output, str):
        (stream if stream is not None else sys.stdout).write(output)
        return
    print_out(output, stream, piped_width=PIPED_WIDTH)
