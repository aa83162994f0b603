"""``envsnap fleet show``: the groups of a fleet folder, for people (Rich, Markdown) and scripts (JSON).

The first thing printed is the answer: which node(s) differ from the majority and the most
important difference (``odd one out: node3 — packages.fleet-odd: (absent) → 1.0 [notable]``).
Then the reference group, each minority group with its layer-aware differences (the tables of
``envsnap diff``, majority as the old side), the findings only that group has, and the nodes that
could not be collected with the reason. Every string from the folder (node names, reasons,
values) is untrusted: one_line in text (inside ``Text``, never markup), escaped in Markdown.

JSON keys are API: ``{"folder", "collected_at", "transport", "uniform", "tie", "nodes": [{name,
status, group, fingerprint, reason}], "groups": [{group, fingerprint, reference, nodes, impact,
changes: [...], findings_only_here: [...]}], "failed": [...]}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group as RichGroup
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from envsnap.fleet.group import FleetGroups, Group, LoadedFleet, NodeCheck
from envsnap.render.diff import (
    IMPACT_STYLE,
    _code,
    _md,
    changes_json,
    changes_markdown,
    format_value,
    render_changes,
)
from envsnap.snapshot.json_text import to_json
from envsnap.snapshot.model import Change
from envsnap.snapshot.safe_text import one_line

MAX_NODES_NAMED = 8


def names(nodes: Sequence[str], limit: int = MAX_NODES_NAMED) -> str:
    """``n1, n2, n3`` or ``n1, … and 40 more``; each name made terminal-safe."""
    shown = ", ".join(one_line(n) for n in nodes[:limit])
    return shown + (f", … and {len(nodes) - limit} more" if len(nodes) > limit else "")


def change_text(change: Change) -> str:
    """``packages.fleet-odd: (absent) → 1.0 [notable]``."""
    old = format_value(change.path, change.old)
    new = format_value(change.path, change.new)
    return f"{one_line(change.path)}: {old} → {new} [{change.impact}]"


def group_label(groups: FleetGroups, index: int) -> str:
    return "majority" if index == 0 else f"group {index + 1}"


def headline(loaded: LoadedFleet, groups: FleetGroups) -> str:
    """The answer in one line: uniform, or the odd node(s) and their most important difference."""
    total = len(loaded.nodes)
    failed = f"; {len(groups.failed)} not collected" if groups.failed else ""
    if not groups.groups:
        return f"no node of {total} could be collected"
    if len(groups.groups) == 1:
        fingerprint = one_line(groups.groups[0].fingerprint)
        return f"uniform: {len(groups.groups[0].nodes)} of {total} nodes share {fingerprint}{failed}"
    odd = groups.minorities[0]
    first = change_text(odd.changes[0]) if odd.changes else "fingerprint differs"
    more = len(odd.changes) - 1
    extra = f" (+{more} more)" if more > 0 else ""
    groups_text = f"{len(groups.groups)} groups"
    return f"odd one out: {names(odd.nodes)} — {first}{extra} · {groups_text} across {total} nodes{failed}"


def summary_line(loaded: LoadedFleet, groups: FleetGroups) -> str:
    index = loaded.index
    when = f" at {one_line(index.collected_at)}" if index.collected_at else ""
    via = f" via {one_line(index.transport)}" if index.transport else ""
    ok = sum(1 for n in loaded.nodes if n.snapshot is not None)
    return f"{one_line(str(loaded.folder))}: {ok} of {len(loaded.nodes)} nodes collected{via}{when}"


def render_fleet_groups(loaded: LoadedFleet, groups: FleetGroups) -> RenderableType:
    parts: list[RenderableType] = [
        Text(headline(loaded, groups), style="bold"),
        Text(summary_line(loaded, groups), style="dim"),
    ]
    for i, group in enumerate(groups.groups):
        parts.append(Text(""))
        parts.append(_group_heading(groups, i, group))
        if i == 0:
            if groups.tie:
                parts.append(
                    Text("tie: another group is as large; the first node's group is the reference", "yellow")
                )
            continue
        parts.append(render_changes(group.changes, "majority", group_label(groups, i)))
        if group.findings_only_here:
            parts.append(Text("findings only in this group:", style="bold"))
            for finding in group.findings_only_here:
                parts.append(
                    Text(f"  {finding.severity}: {one_line(finding.title)} ({one_line(finding.id)})")
                )
    if groups.failed:
        parts.append(Text(""))
        table = Table(title=Text("not collected"), title_justify="left", title_style="bold", show_edge=False)
        for column in ("node", "status", "reason"):
            table.add_column(column, overflow="fold")
        for record in groups.failed:
            table.add_row(
                Text(one_line(record.name)), Text(record.status, "red"), Text(one_line(record.reason or ""))
            )
        parts.append(table)
    return RichGroup(*parts)


def _group_heading(groups: FleetGroups, index: int, group: Group) -> Text:
    label = group_label(groups, index)
    size = f"{len(group.nodes)} node{'s' if len(group.nodes) != 1 else ''}"
    text = Text(f"{label} · {one_line(group.fingerprint)} · {size}: {names(group.nodes)}", style="bold")
    if group.impact is not None:
        text.append(f"  [{group.impact}]", style=IMPACT_STYLE[group.impact])
    return text


def fleet_groups_json(loaded: LoadedFleet, groups: FleetGroups) -> dict[str, Any]:
    index = loaded.index
    group_of = groups.node_group
    nodes = [
        {
            "name": node.name,
            "status": node.record.status,
            "group": group_of.get(node.name, None) if node.snapshot is not None else None,
            "fingerprint": node.record.fingerprint,
            "reason": node.record.reason,
            "seconds": node.record.seconds,
        }
        for node in loaded.nodes
    ]
    rows = []
    for i, group in enumerate(groups.groups):
        diff = changes_json(
            group.changes,
            ("majority", groups.groups[0].fingerprint),
            (group_label(groups, i), group.fingerprint),
        )
        rows.append(
            {
                "group": i,
                "fingerprint": group.fingerprint,
                "reference": i == 0,
                "nodes": list(group.nodes),
                "impact": group.impact,
                "changes": diff["changes"],
                "summary": diff["summary"],
                "findings_only_here": [
                    {"id": f.id, "severity": f.severity, "title": f.title, "fix": f.fix}
                    for f in group.findings_only_here
                ],
            }
        )
    return {
        "folder": str(loaded.folder),
        "collected_at": index.collected_at or None,
        "transport": index.transport,
        "command": index.command,
        "uniform": groups.uniform,
        "tie": groups.tie,
        "headline": headline(loaded, groups),
        "nodes": nodes,
        "groups": rows,
        "failed": [{"name": r.name, "status": r.status, "reason": r.reason} for r in groups.failed],
    }


def fleet_groups_markdown(loaded: LoadedFleet, groups: FleetGroups) -> str:
    lines = [
        f"### envsnap fleet: {_md(summary_line(loaded, groups))}",
        "",
        f"**{_md(headline(loaded, groups))}**",
    ]
    for i, group in enumerate(groups.groups):
        heading = f"{group_label(groups, i)}: `{_code(group.fingerprint, in_table=False)}`"
        lines += ["", f"#### {heading} — {len(group.nodes)} node(s): {_md(names(group.nodes))}"]
        if i == 0:
            continue
        body = changes_markdown(group.changes, "majority", group_label(groups, i))
        lines += ["", *body.splitlines()[2:]]  # without its own heading
        if group.findings_only_here:
            lines += ["", "Findings only in this group:", ""]
            lines += [
                f"- {f.severity}: {_md(f.title)} (`{_code(f.id, in_table=False)}`)"
                for f in group.findings_only_here
            ]
    if groups.failed:
        lines += ["", "#### not collected", "", "| node | status | reason |", "|---|---|---|"]
        for record in groups.failed:
            lines.append(f"| {_md(record.name)} | {record.status} | {_md(record.reason or '')} |")
    return "\n".join(lines) + "\n"


def fleet_show_report(loaded: LoadedFleet, groups: FleetGroups, fmt: str) -> str | RenderableType:
    """What ``envsnap fleet show DIR`` (and ``envsnap diff DIR``) prints."""
    if fmt == "json":
        return to_json(fleet_groups_json(loaded, groups)) + "\n"
    if fmt == "markdown":
        return fleet_groups_markdown(loaded, groups)
    return render_fleet_groups(loaded, groups)


def node_checks_report(
    checks: Sequence[NodeCheck], golden: str, threshold_rank: int, fmt: str
) -> str | RenderableType:
    """``envsnap check DIR --against GOLDEN``: one verdict per node."""
    from envsnap.compare.impact import IMPACT_RANK

    def failing(check: NodeCheck) -> bool:
        return check.changes is None or any(IMPACT_RANK[c.impact] <= threshold_rank for c in check.changes)

    if fmt == "json":
        doc = {
            "golden": golden,
            "nodes": [
                {
                    "name": check.record.name,
                    "status": check.record.status,
                    "matches": not failing(check),
                    "reason": check.record.reason,
                    "changes": None
                    if check.changes is None
                    else changes_json(check.changes, (golden, None), (check.record.name, None))["changes"],
                }
                for check in checks
            ],
        }
        return to_json(doc) + "\n"
    table = Table(show_edge=False)
    for column in ("node", "verdict", "differences from " + one_line(golden)):
        table.add_column(Text(column), overflow="fold")
    for check in checks:
        if check.changes is None:
            verdict, detail = Text(check.record.status, "red"), one_line(check.record.reason or "no snapshot")
        else:
            verdict = Text("differs", "red") if failing(check) else Text("matches", "green")
            detail = "; ".join(change_text(c) for c in check.changes[:3]) + (
                f" (+{len(check.changes) - 3} more)" if len(check.changes) > 3 else ""
            )
        table.add_row(Text(one_line(check.record.name)), verdict, Text(detail or "no differences"))
    bad = sum(1 for c in checks if failing(c))
    return RichGroup(
        table,
        Text(""),
        Text(f"{len(checks) - bad} of {len(checks)} nodes match {one_line(golden)}", style="bold"),
    )


class FleetProgress:
    """Progress callback for a collection: ``collecting: 12 done · 1 failed · 51 pending`` on stderr.

    Transports call it from their own threads (Slurm reads two pipes), hence the lock. Node names
    never reach the terminal here, so a hostile name can't either.
    """

    def __init__(self, console: Any, total: int | None) -> None:
        import threading

        self._console = console
        self._total = total
        self._done = 0
        self._failed = 0
        self._started = 0
        self._lock = threading.Lock()
        self._status: Any = None

    def text(self) -> str:
        pending = (
            f"{self._total - self._done - self._failed} pending"
            if self._total is not None
            else f"{self._started - self._done - self._failed} running"
        )
        return f"collecting: {self._done} done · {self._failed} failed · {pending}"

    def __call__(self, node: str, state: str) -> None:
        with self._lock:
            if state == "started":
                self._started += 1
            elif state == "done":
                self._done += 1
            else:
                self._failed += 1
            if self._status is None:
                self._status = self._console.status(self.text(), spinner="dots")
                self._status.start()
            else:
                self._status.update(self.text())

    def stop(self) -> None:
        with self._lock:
            if self._status is not None:
                self._status.stop()
                self._status = None
