"""``envsnap check --list-rules``: every rule id with its severities, meaning, fix and source."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from envsnap.rules.catalog import RuleDoc
from envsnap.snapshot.json_text import to_json

_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def rule_table(docs: Sequence[RuleDoc]) -> Table:
    """A table for people: id, severities, then meaning, fix and source in one column."""
    table = Table(show_edge=False, box=None, padding=(0, 2, 1, 0), header_style="bold")
    table.add_column("id", no_wrap=True)
    table.add_column("severity", no_wrap=True)
    table.add_column("what it means · how to fix · source", overflow="fold")
    for doc in docs:
        severity = Text(" / ").join(Text(s, style=_STYLES.get(s, "")) for s in doc.severities)
        about = Text(doc.meaning)
        about.append(f"\nfix: {doc.fix}", style="dim")
        about.append(f"\nsource: {doc.source}", style="dim")
        table.add_row(Text(doc.id, style="bold"), severity, about)
    return table


def rules_json(docs: Sequence[RuleDoc]) -> str:
    """``{"rules": [{"id", "severities", "meaning", "fix", "source"}]}``."""
    return to_json({"rules": list(docs)})
