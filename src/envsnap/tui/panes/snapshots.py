"""The Snapshots tab: the saved snapshots of the snapshots folder, and diffs between them.

``d`` diffs the selected snapshot against the machine on screen (live, or the opened file); after
``m`` marks a snapshot as the base, ``d`` diffs the base against the selected one instead. The
pane only asks (``DiffRequested``); the app's worker reads the files and runs the diff.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from envsnap.tui.catalog import SnapshotEntry
from envsnap.tui.panes.deferred import DeferredPane

if TYPE_CHECKING:
    from textual.widgets import DataTable

_HINT = "d diff with this machine · m mark base, then d: base vs selected"


class SnapshotsPane(DeferredPane):
    """A table of snapshot files and the keys to compare them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "diff", "Diff"),
        Binding("m", "mark", "Mark base"),
    ]

    entries: reactive[tuple[SnapshotEntry, ...] | None] = reactive(None)
    folder: reactive[str] = reactive("snapshots")
    marked: reactive[Path | None] = reactive(None)
    """The snapshot marked as the diff base, if any."""

    @dataclass
    class DiffRequested(Message):
        """The user asked for a diff; ``old`` None means "the machine on screen"."""

        old: Path | None
        new: Path

    def __init__(self) -> None:
        super().__init__("Snapshots", id="snapshots")

    def content(self) -> Iterable[Widget]:
        from textual.widgets import DataTable  # imported when the tab is built, not at start

        yield Static(id="snapshots-header")
        table: DataTable[Text] = DataTable(id="snapshot-table", cursor_type="row", zebra_stripes=True)
        for column in ("", "file", "captured (UTC)", "torch", "fingerprint", "host"):
            table.add_column(column, key=column or "mark")
        yield table

    def show(self) -> None:
        self._refill()

    def watch_entries(self) -> None:
        self._refill()

    def watch_marked(self) -> None:
        self._refill()

    def watch_folder(self) -> None:
        self._refill()

    def selected(self) -> SnapshotEntry | None:
        """The entry under the table's cursor."""
        entries = self.entries or ()
        if not entries or not self.built:
            return None
        from textual.widgets import DataTable

        row = self.query_one("#snapshot-table", DataTable).cursor_row
        return entries[row] if 0 <= row < len(entries) else None

    def action_mark(self) -> None:
        """Mark (or unmark) the selected snapshot as the base of the next diff."""
        entry = self.selected()
        if entry is None:
            self.notify("No snapshot selected.", severity="warning")
            return
        self.marked = None if self.marked == entry.path else entry.path

    def action_diff(self) -> None:
        """Diff the selected snapshot against the base (or the machine on screen)."""
        entry = self.selected()
        if entry is None:
            self.notify("No snapshot selected: save one with s first.", severity="warning")
            return
        if entry.error is not None:
            self.notify(f"{entry.path.name}: {entry.error}", severity="error", markup=False)
            return
        old = self.marked if self.marked != entry.path else None
        self.post_message(self.DiffRequested(old, entry.path))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # By name, not ``@on(DataTable.RowSelected, ...)``: the class body needs no DataTable import.
        if event.data_table.id == "snapshot-table":
            self.action_diff()

    def _refill(self) -> None:
        if not self.built:
            return
        entries = self.entries
        header = self.query_one("#snapshots-header", Static)
        if entries is None:
            header.update(Content.styled(f"Reading {self.folder}/ …", "$text-muted"))
        elif not entries:
            header.update(
                Content.styled(
                    f"No snapshots in {self.folder}/ yet: press s to save this machine.", "$text-muted"
                )
            )
        else:
            header.update(
                Content.assemble((f"{len(entries)} in {self.folder}/  ", "bold"), (_HINT, "$text-muted"))
            )
        from textual.widgets import DataTable

        table: DataTable[Text] = self.query_one("#snapshot-table", DataTable)
        cursor = table.cursor_row
        table.clear()
        for entry in entries or ():
            # Cells are rich Text, never str: DataTable parses str cells as markup; names may hold "[".
            mark = Text("base", style="bold reverse") if entry.path == self.marked else Text("")
            if entry.error is not None:
                table.add_row(
                    mark, Text(entry.path.name), Text(entry.error, style="italic"), *(Text(""),) * 3
                )
                continue
            captured = (entry.captured_at or "").replace("T", " ")[:16]  # to the minute: fits 80 columns
            cells = (captured, entry.torch, (entry.fingerprint or "")[7:19], entry.host)
            table.add_row(mark, Text(entry.path.name), *(Text(cell or "") for cell in cells))
        if entries:
            table.move_cursor(row=min(max(cursor, 0), len(entries) - 1))
