"""Diff and fleet reports for people (Rich tables, Markdown for pull requests) and for scripts (JSON).

Reads only what diff.py and fleet.py return. Two-way: a table per layer, the layers with breaking
changes first and breaking rows first within each, then a summary line with counts per impact.
Fleet: one row per differing field with the majority value and the hosts that deviate from it.
JSON keys are API (README): ``{"changes": [{layer, path, kind, old, new, impact}], "summary": {...}}``
and ``{"hosts": [...], "fields": [...], "summary": {...}}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from envsnap.diff import summarize
from envsnap.fleet import ABSENT, FleetReport
from envsnap.impact import IMPACT_RANK, IMPACTS, LAYERS
from envsnap.model import Change
from envsnap.render.data import to_json
from envsnap.render.summary import human_bytes

IMPACT_STYLE = {"breaking": "bold red", "notable": "yellow", "minor": "dim"}
MAX_CELL_CHARS = 160
"""Longer values (a long Requires-Dist list) are cut in text and Markdown; JSON keeps them whole."""
MAX_DEVIANTS_SHOWN = 12


def format_value(path: str, value: Any, *, limit: int = MAX_CELL_CHARS) -> str:
    """A value as one short line: ``—`` when absent, sizes in GiB, lists comma-separated."""
    if value is None or value is ABSENT:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and path.endswith("_bytes"):
        return human_bytes(value)
    if isinstance(value, (tuple, list)):
        text = ", ".join(format_value("", item, limit=limit) for item in value) if value else "(none)"
    else:
        text = str(value)
    text = " ".join(text.split())  # one line, whatever the snapshot holds
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _layer_order(changes: Sequence[Change]) -> list[str]:
    """Layers that have changes: those with breaking changes first, then in the canonical order."""
    present = {change.layer for change in changes}
    worst = {layer: min(IMPACT_RANK[c.impact] for c in changes if c.layer == layer) for layer in present}
    return sorted(present, key=lambda layer: (worst[layer], LAYERS.index(layer) if layer in LAYERS else 99))


def _rows(changes: Sequence[Change], layer: str) -> list[Change]:
    return sorted((c for c in changes if c.layer == layer), key=lambda c: (IMPACT_RANK[c.impact], c.path))


def summary_line(changes: Sequence[Change], old_label: str, new_label: str) -> str:
    """``2 breaking · 1 notable · 4 minor (7 changes) from A to B``."""
    counts = summarize(changes)
    parts = " · ".join(f"{counts[impact]} {impact}" for impact in IMPACTS)
    noun = "change" if counts["total"] == 1 else "changes"
    return f"{parts} ({counts['total']} {noun}) from {old_label} to {new_label}"


def render_changes(changes: Sequence[Change], old_label: str, new_label: str) -> RenderableType:
    """Rich tables, one per layer, and the summary line."""
    parts: list[RenderableType] = [Text(f"{old_label} → {new_label}", style="bold")]
    for layer in _layer_order(changes):
        table = Table(
            title=Text(layer), title_justify="left", title_style="bold", expand=False, show_edge=False
        )
        table.add_column("impact", no_wrap=True)
        table.add_column("", no_wrap=True)
        table.add_column("path", overflow="fold")
        table.add_column(old_label, overflow="fold")
        table.add_column(new_label, overflow="fold")
        for change in _rows(changes, layer):
            mark = {"added": "+", "removed": "-", "changed": "~"}[change.kind]
            table.add_row(  # Text cells: snapshot values must never be read as Rich markup
                Text(change.impact, style=IMPACT_STYLE[change.impact]),
                Text(mark),
                Text(change.path),
                Text(format_value(change.path, change.old)),
                Text(format_value(change.path, change.new)),
            )
        parts.append(Text(""))
        parts.append(table)
    parts.append(Text(""))
    parts.append(Text(summary_line(changes, old_label, new_label), style="bold"))
    return Group(*parts)


def changes_json(
    changes: Sequence[Change], old: tuple[str, str | None], new: tuple[str, str | None]
) -> dict[str, Any]:
    """The ``--json`` document; ``old``/``new`` are (label, fingerprint)."""
    summary: dict[str, Any] = dict(summarize(changes))
    summary["old"] = {"label": old[0], "fingerprint": old[1]}
    summary["new"] = {"label": new[0], "fingerprint": new[1]}
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


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'")


def changes_markdown(changes: Sequence[Change], old_label: str, new_label: str) -> str:
    """A Markdown report to paste into a pull request or an issue."""
    lines = [f"### envsnap diff: `{_md(old_label)}` → `{_md(new_label)}`", ""]
    lines.append(f"**{_md(summary_line(changes, old_label, new_label))}**")
    for layer in _layer_order(changes):
        lines += ["", f"#### {layer}", "", "| impact | path | old | new |", "|---|---|---|---|"]
        for change in _rows(changes, layer):
            old = _md(format_value(change.path, change.old))
            new = _md(format_value(change.path, change.new))
            impact = f"**{change.impact}**" if change.impact == "breaking" else change.impact
            lines.append(f"| {impact} | `{_md(change.path)}` | {old} | {new} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- fleet


def _deviants_text(report: FleetReport, index: int, limit: int | None = MAX_DEVIANTS_SHOWN) -> str:
    field = report.fields[index]
    shown = field.deviants if limit is None else field.deviants[:limit]
    text = ", ".join(
        f"{report.hosts[i]}: {format_value(field.path, field.values[i], limit=60)}" for i in shown
    )
    hidden = len(field.deviants) - len(shown)
    return text + (f", … and {hidden} more" if hidden else "")


def fleet_summary_line(report: FleetReport) -> str:
    """``3 fields differ across 50 hosts; most deviations: gpu-17 (3)``."""
    counts = {impact: sum(1 for f in report.fields if f.impact == impact) for impact in IMPACTS}
    hosts = report.deviating_hosts()
    top = ", ".join(f"{host} ({n})" for host, n in list(hosts.items())[:5])
    parts = " · ".join(f"{counts[impact]} {impact}" for impact in IMPACTS)
    noun = "field differs" if len(report.fields) == 1 else "fields differ"
    return f"{len(report.fields)} {noun} across {len(report.hosts)} hosts ({parts}); deviating: {top}"


def render_fleet(report: FleetReport) -> RenderableType:
    """One table of differing fields: majority value and the hosts that deviate."""
    table = Table(expand=False, show_edge=False)
    for name in ("impact", "layer", "path", "majority", "deviating hosts"):
        table.add_column(name, overflow="fold", no_wrap=name == "impact")
    total = len(report.hosts)
    for index, field in enumerate(report.fields):
        table.add_row(
            Text(field.impact, style=IMPACT_STYLE[field.impact]),
            Text(field.layer),
            Text(field.path),
            Text(f"{format_value(field.path, field.majority, limit=60)} ({field.majority_count}/{total})"),
            Text(_deviants_text(report, index)),
        )
    return Group(table, Text(""), Text(fleet_summary_line(report), style="bold"))


def _plain(value: Any) -> Any:
    return None if value is ABSENT else msgspec.to_builtins(value)


def fleet_json(report: FleetReport) -> dict[str, Any]:
    """The ``--json`` document of a fleet comparison."""
    fields = [
        {
            "layer": field.layer,
            "path": field.path,
            "impact": field.impact,
            "majority": _plain(field.majority),
            "majority_count": field.majority_count,
            "values": {host: _plain(value) for host, value in zip(report.hosts, field.values, strict=True)},
            "deviants": [report.hosts[i] for i in field.deviants],
        }
        for field in report.fields
    ]
    counts: dict[str, Any] = {
        impact: sum(1 for f in report.fields if f.impact == impact) for impact in IMPACTS
    }
    summary: dict[str, Any] = {
        **counts,
        "fields": len(report.fields),
        "hosts": len(report.hosts),
        "deviating": report.deviating_hosts(),
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
    lines += ["| impact | path | majority | deviating hosts |", "|---|---|---|---|"]
    total = len(report.hosts)
    for index, field in enumerate(report.fields):
        majority = _md(format_value(field.path, field.majority, limit=60))
        deviants = _md(_deviants_text(report, index, limit=None))
        share = f"{field.majority_count}/{total}"
        lines.append(f"| {field.impact} | `{_md(field.path)}` | {majority} ({share}) | {deviants} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- entry points for the CLI


def diff_report(
    changes: Sequence[Change], labels: Sequence[str], fingerprints: Sequence[str | None], fmt: str
) -> str | RenderableType:
    """What ``envsnap diff A B`` prints: text (JSON, Markdown, "no differences: ...") or Rich tables."""
    old, new = (labels[0], fingerprints[0]), (labels[1], fingerprints[1])
    if fmt == "json":
        return to_json(changes_json(changes, old, new)) + "\n"
    if not changes:
        same = (
            fingerprints[0]
            if fingerprints[0] == fingerprints[1]
            else f"{fingerprints[0]} ≈ {fingerprints[1]}"
        )
        line = f"no differences: {same}"
        return f"{line}\n" if fmt == "text" else f"**{_md(line)}**\n"
    if fmt == "markdown":
        return changes_markdown(changes, labels[0], labels[1])
    return render_changes(changes, labels[0], labels[1])


def fleet_report(report: FleetReport, fmt: str) -> str | RenderableType:
    """What ``envsnap diff A B C ...`` prints."""
    if fmt == "json":
        return to_json(fleet_json(report)) + "\n"
    if not report.fields:
        fingerprints = sorted({fp or "?" for fp in report.fingerprints})
        line = f"no differences across {len(report.hosts)} snapshots: {', '.join(fingerprints)}"
        return f"{line}\n" if fmt == "text" else f"**{_md(line)}**\n"
    if fmt == "markdown":
        return fleet_markdown(report)
    return render_fleet(report)
