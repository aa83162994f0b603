"""The Packages tab: every installed distribution, filterable and sortable.

The "linked" column marks distributions whose compiled modules link CUDA, ROCm or oneAPI
libraries (from the snapshot's ``extensions`` section): those are the packages that break when
the driver or toolkit underneath them changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widget import Widget

from envsnap.tui.panes.deferred import DeferredPane

if TYPE_CHECKING:
    from packaging.version import Version
    from textual.widgets import DataTable, Input

    from envsnap.snapshot.model import Package, Snapshot

COLUMNS = ("name", "version", "installer", "source", "linked")
"""Column keys, also the sort keys ``o`` cycles through."""
MAX_SHOWN_ROWS = 2_000
"""Rows the table holds at once; the filter narrows the rest. Filling a DataTable costs ~0.1 ms a
row, so refilling 150k rows on every key of the filter froze the app for minutes (a hostile or
just huge snapshot); the counts above the table say how many matched."""


@dataclass(frozen=True)
class PackageRow:
    """One table row, as text."""

    name: str
    version: str
    installer: str
    source: str
    linked: str

    def cell(self, column: str) -> str:
        """The text of a column."""
        return str(getattr(self, column))


def package_rows(snapshot: Snapshot | None) -> list[PackageRow]:
    """Rows for every distribution in the snapshot, with the accelerator-link marker."""
    if snapshot is None:
        return []
    from packaging.utils import canonicalize_name  # not needed for the first (empty) frame

    linked = {
        canonicalize_name(dist.name): "/".join(v.upper() if v != "rocm" else "ROCm" for v in dist.vendors)
        for dist in (snapshot.extensions.distributions or () if snapshot.extensions else ())
    }
    return [
        _row(package, linked.get(canonicalize_name(package.name), "")) for package in snapshot.packages or ()
    ]


def _row(package: Package, linked: str) -> PackageRow:
    source = package.source
    where = (
        ""
        if source is None
        else source.kind
        if source.kind in ("index", "editable")
        else source.url or source.kind
    )
    return PackageRow(package.name, package.version, package.installer or "", where, linked)


class PackagesPane(DeferredPane):
    """A filter box over a DataTable of distributions."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "cycle_sort", "Sort"),
    ]

    snapshot: reactive[Snapshot | None] = reactive(None)
    sort_column: reactive[str] = reactive("name")
    sort_reverse: reactive[bool] = reactive(False)

    def __init__(self) -> None:
        super().__init__("Packages", id="packages")
        self._rows: list[PackageRow] = []
        """Every row, in name order (PEP 503-normalized)."""
        self._haystacks: list[str] = []
        """Each row's cells, lower-cased and joined: what the filter searches, built once."""
        self._sort_keys: dict[str, list[tuple[bool, Any]]] = {}
        """Per column, each row's sort key, built the first time that column is sorted on."""

    def content(self) -> Iterable[Widget]:
        # The table and the input (and rich's table machinery) are imported when the tab is built,
        # after the first GPU card: the start path loads no widget a hidden tab needs.
        from textual.widgets import DataTable, Input

        yield Input(placeholder="filter by name, version, installer or source  (/)", id="package-filter")
        table: DataTable[Text] = DataTable(id="package-table", cursor_type="row", zebra_stripes=True)
        for column in COLUMNS:
            table.add_column(column, key=column)
        yield table

    def watch_snapshot(self, snapshot: Snapshot | None) -> None:
        from packaging.utils import canonicalize_name

        self._rows = sorted(package_rows(snapshot), key=lambda r: canonicalize_name(r.name))
        # "\n" between cells: a needle can't match across two columns (an Input holds one line).
        self._haystacks = ["\n".join(r.cell(c) for c in COLUMNS).lower() for r in self._rows]
        self._sort_keys = {}
        self._refill()

    def show(self) -> None:
        self._refill()

    def watch_sort_column(self) -> None:
        self._refill()

    def watch_sort_reverse(self) -> None:
        self._refill()

    # Handlers by name (not ``@on(Input.Changed, ...)``): the class body then needs no widget import.
    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "package-filter":
            self._refill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "package-filter":
            self.action_focus_table()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        column = str(event.column_key.value)
        if column == self.sort_column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = column, False

    def action_focus_filter(self) -> None:
        """Put the cursor in the filter box."""
        from textual.widgets import Input

        self.screen.set_focus(self.query_one("#package-filter", Input))  # now, not deferred

    def action_focus_table(self) -> None:
        """Back from the filter box to the table."""
        from textual.widgets import DataTable

        self.screen.set_focus(self.query_one("#package-table", DataTable))

    def action_cycle_sort(self) -> None:
        """Sort by the next column."""
        index = COLUMNS.index(self.sort_column)
        self.sort_column, self.sort_reverse = COLUMNS[(index + 1) % len(COLUMNS)], False

    def visible_rows(self) -> list[PackageRow]:
        """The rows that pass the filter, in the current order."""
        if not self.built:
            return []
        from textual.widgets import Input

        needle = self.query_one("#package-filter", Input).value.strip().lower()
        if needle:
            indexes = [i for i, hay in enumerate(self._haystacks) if needle in hay]
        else:
            indexes = list(range(len(self._rows)))
        column = self.sort_column
        if column == "name":
            if self.sort_reverse:
                indexes.reverse()
        else:
            keys = self._column_keys(column)
            # Stable sorts on name-ordered rows: ties stay in name order, and empty cells go last
            # whatever the direction ("no installer recorded" is not a value to rank).
            indexes.sort(key=lambda i: keys[i][1], reverse=self.sort_reverse)
            indexes.sort(key=lambda i: keys[i][0])
        return [self._rows[i] for i in indexes]

    def _column_keys(self, column: str) -> list[tuple[bool, Any]]:
        """(cell is empty, sort key) of every row for ``column``."""
        if column not in self._sort_keys:
            cells = [r.cell(column) for r in self._rows]
            if column == "version":  # each distinct version parsed once: most repeat
                parsed = {cell: _version_key(cell) for cell in set(cells)}
                keys: list[Any] = [parsed[cell] for cell in cells]
            else:
                keys = [cell.lower() for cell in cells]
            self._sort_keys[column] = [(cell == "", key) for cell, key in zip(cells, keys, strict=True)]
        return self._sort_keys[column]

    def _refill(self) -> None:
        if not self.built:
            return
        from textual.widgets import DataTable, Input

        table: DataTable[Text] = self.query_one("#package-table", DataTable)
        table.clear()
        rows = self.visible_rows()
        shown = rows[:MAX_SHOWN_ROWS]
        # Text, not str: DataTable would parse str cells as markup ("pkg[extra]", URLs with brackets).
        table.add_rows([tuple(Text(r.cell(c)) for c in COLUMNS) for r in shown])
        arrow = "▼" if self.sort_reverse else "▲"
        total = len(self._rows)
        counts = (
            f"{len(rows)} of {total}"
            if len(shown) == len(rows)
            else f"first {len(shown):,} of {len(rows):,} matching ({total:,} in all), filter to narrow"
        )
        self.query_one(
            "#package-filter", Input
        ).border_subtitle = f"{counts} · sorted by {self.sort_column} {arrow}"


def _version_key(version: str) -> tuple[int, Version | str]:
    from envsnap.compare.impact import parse_version

    parsed = parse_version(version)
    return (1, version) if parsed is None else (0, parsed)
