"""The Fleet tab: a fleet folder (``envsnap tui fleet/``) — every node, the groups, the odd one's diff.

Shown instead of the snapshot tabs when the opened path is a folder written by ``envsnap fleet
collect`` (or any folder of snapshots). Top: the answer line (which node is odd and why). Then one
row per node (status, fingerprint group, GPUs, driver, torch, worst finding), the groups, and the
differences of the selected node's group from the majority, worst first. Read-only; all
computing happened in the file worker (fleet/group.py), rows come from tui/fleet_rows.py.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from envsnap.documents import FleetDocument
from envsnap.render.diff import IMPACT_STYLE, format_value, most_severe
from envsnap.render.fleet import headline
from envsnap.snapshot.safe_text import one_line
from envsnap.tui.fleet_rows import NODE_COLUMNS, group_label, group_lines, node_rows
from envsnap.tui.overview_rows import section_summary, working_side


class FleetScreen(Screen[None]):
    """Read-only view of a fleet folder."""

    DEFAULT_CSS = """
    FleetScreen #fleet-headline { padding: 0 1; text-style: bold; }
    FleetScreen .fleet-heading { padding: 1 1 0 1; text-style: bold; color: $text-muted; }
    FleetScreen #fleet-nodes { height: auto; max-height: 50%; }
    FleetScreen #fleet-groups { padding: 0 1; }
    FleetScreen #fleet-diff { height: 1fr; }
    """
    TITLE = "Fleet"

    def __init__(self, document: FleetDocument, path: Path) -> None:
        super().__init__(id="fleet")
        self.document = document
        self.path = path

    def compose(self) -> ComposeResult:
        loaded, groups = self.document.loaded, self.document.groups
        with Vertical():
            yield Static(Content(headline(loaded, groups)), id="fleet-headline")
            yield Static(Content("Nodes"), classes="fleet-heading")
            table: DataTable[str] = DataTable(id="fleet-nodes", cursor_type="row", zebra_stripes=True)
            yield table
            yield Static(Content("Groups"), classes="fleet-heading")
            yield Static(Content("\n".join(group_lines(self.document))), id="fleet-groups")
            yield Static(
                Content("Selected node vs majority"), classes="fleet-heading", id="fleet-diff-heading"
            )
            diff: DataTable[Text] = DataTable(id="fleet-diff", cursor_type="none", zebra_stripes=True)
            yield diff
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"fleet {one_line(str(self.path))} · read-only"
        table = self.query_one("#fleet-nodes", DataTable)
        for column in NODE_COLUMNS:
            table.add_column(column, key=column)
        for row in node_rows(self.document):
            # Text cells: DataTable parses a str cell as markup ("[/]" in a GPU name crashed the view).
            table.add_row(*(Text(cell) for cell in row), key=row[0])
        diff = self.query_one("#fleet-diff", DataTable)
        for column in ("impact", "path", "majority", "this node"):
            diff.add_column(column, key=column)
        odd = self.document.groups.minorities
        first = odd[0].nodes[0] if odd else None
        rows = [r[0] for r in node_rows(self.document)]
        if first is not None and one_line(first) in rows:
            table.move_cursor(row=rows.index(one_line(first)))  # start on the odd node
        self.show_node(rows[table.cursor_row] if rows else None)
        table.focus()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "fleet-nodes" and event.row_key.value is not None:
            self.show_node(str(event.row_key.value))

    def show_node(self, shown_name: str | None) -> None:
        """Fill the diff table with the selected node's group against the majority."""
        diff = self.query_one("#fleet-diff", DataTable)
        heading = self.query_one("#fleet-diff-heading", Static)
        diff.clear()
        groups = self.document.groups
        node = next((n for n in self.document.loaded.nodes if one_line(n.name) == shown_name), None)
        if node is None:
            return
        index = groups.node_group.get(node.name)
        if index is None:
            heading.update(Content(f"{shown_name}: not collected ({node.record.status})"))
            return
        if index == 0:
            heading.update(Content(f"{shown_name} is in the majority group: no differences"))
            return
        group = groups.groups[index]
        shown, hidden = most_severe(group.changes)
        cut = f"; the {len(shown):,} most severe shown, envsnap fleet show --json lists all" if hidden else ""
        heading.update(
            Content(f"{shown_name} ({group_label(index)}) vs majority: {len(group.changes)} differences{cut}")
        )
        snapshots = {n.name: n.snapshot for n in self.document.loaded.nodes}
        reference = snapshots.get(groups.groups[0].nodes[0]) if groups.groups[0].nodes else None
        for change in (group.changes[i] for i in shown):
            old, new = format_value(change.path, change.old), format_value(change.path, change.new)
            # A layer that started or stopped working: say what works on that side (skipped → ok
            # alone hides the driver and the 2× H100 that appeared).
            side = working_side(change)
            holder = node.snapshot if side == "new" else reference if side == "old" else None
            summary = section_summary(holder, change.path) if holder is not None else None
            if summary and side == "new":
                new = f"{new}: {summary}"
            elif summary:
                old = f"{old}: {summary}"
            diff.add_row(
                Text(change.impact, style=IMPACT_STYLE[change.impact]),
                Text(one_line(change.path)),
                Text(old),
                Text(new),
            )
