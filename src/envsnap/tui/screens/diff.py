"""The diff screen: what changed between two snapshots, breaking changes first.

It shows ``model.Change`` values from ``envsnap.compare.diff`` (computed by the app's worker) and knows
nothing about how they were found.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from envsnap.render.diff import MAX_TABLE_ROWS
from envsnap.tui.overview_rows import working_side

if TYPE_CHECKING:
    from envsnap.snapshot.model import Change


IMPACT_ORDER = {"breaking": 0, "notable": 1, "minor": 2}
_IMPACT_STYLE = {"breaking": "bold reverse", "notable": "bold", "minor": "dim"}


def ordered(changes: Sequence[Change]) -> list[Change]:
    """Breaking changes first, then notable, then minor; by layer and path within each."""
    return sorted(changes, key=lambda c: (IMPACT_ORDER.get(c.impact, 3), c.layer, c.path))


def _short(value: object, width: int = 40) -> str:
    text = "null" if value is None else str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def describe(change: Change, working: str | None = None) -> str:
    """``old → new``, ``+ new`` or ``− old``.

    ``working``: the summary of a section that started or stopped working, on the side where it
    works: ``skipped: no driver → ok: driver 590.48.01 · 2× NVIDIA H100 80GB HBM3``.
    """
    if working is not None:
        side = working_side(change)
        if side == "new":
            return f"{_short(change.old)} → ok: {working}"
        if side == "old":
            return f"ok ({working}) → {_short(change.new)}"
    if change.kind == "added":
        return f"+ {_short(change.new)}"
    if change.kind == "removed":
        return f"− {_short(change.old)}"
    return f"{_short(change.old)} → {_short(change.new)}"


class DiffScreen(Screen[None]):
    """A table of changes between an old and a new snapshot."""

    # esc is the app's priority `back` binding (one path for every screen over the tabs).

    def __init__(
        self,
        old_label: str,
        new_label: str,
        changes: Sequence[Change],
        not_compared: Sequence[str] = (),
        working: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(id="diff-screen")
        self.old_label = old_label
        self.new_label = new_label
        self.changes = ordered(changes)
        self.not_compared = tuple(not_compared)
        self.working = dict(working or {})

    def compose(self) -> ComposeResult:
        counts = {impact: sum(1 for c in self.changes if c.impact == impact) for impact in IMPACT_ORDER}
        yield Static(
            Content.assemble(("Diff  ", "bold"), self.old_label, ("  →  ", "$accent bold"), self.new_label),
            id="diff-title",
        )
        if self.not_compared:
            yield Static(
                Content.styled(f"not compared: {', '.join(self.not_compared)}", "$warning"),
                id="diff-not-compared",
            )
        if not self.changes:
            yield Static(
                Content.styled("● No differences in the stable sections.", "$success bold"), id="diff-empty"
            )
        else:
            summary = "  ·  ".join(f"{count} {impact}" for impact, count in counts.items())
            if len(self.changes) > MAX_TABLE_ROWS:  # a DataTable row costs ~0.1 ms: 150k froze the app
                summary += f"  ·  the {MAX_TABLE_ROWS:,} most severe shown; envsnap diff --json lists all"
            yield Static(Content.styled(summary, "$text-muted"), id="diff-summary")
            table: DataTable[Text] = DataTable(id="diff-table", cursor_type="row", zebra_stripes=True)
            for column in ("impact", "layer", "path", "change"):
                table.add_column(column, key=column)
            for change in self.changes[:MAX_TABLE_ROWS]:  # ordered: breaking first
                table.add_row(
                    Text(change.impact, style=_IMPACT_STYLE.get(change.impact, "")),
                    Text(change.layer),
                    Text(change.path),
                    Text(describe(change, self.working.get(change.path))),
                )
            yield table
        yield Footer()
