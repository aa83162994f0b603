"""What each rule checks, for people: the data behind ``check --list-rules`` and the docs' rule table.

One entry per finding id in ``rules/data/rule_catalog.yaml``: the severities it can give, what
it means, how to fix it, and what it rests on. Tests hold the catalog to the rules that run
(same ids, and every severity a rule gives in the test corpus is one its entry lists), and the
table in the docs to this data (``scripts/rule_table.py`` writes it), so none of the three can
drift from the others.
"""

from __future__ import annotations

import functools

import msgspec

from envsnap.rules import knowledge
from envsnap.snapshot.model import Severity


class RuleDoc(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One finding id, described."""

    id: str
    severities: tuple[Severity, ...]
    """The severities the rule can give, most severe first."""
    meaning: str
    fix: str
    source: str
    """A URL: what the rule rests on."""


@functools.cache
def catalog() -> tuple[RuleDoc, ...]:
    """Every rule's entry, in the file's order."""
    return msgspec.convert(knowledge.raw("rule_catalog")["rules"], tuple[RuleDoc, ...])


def markdown_table() -> str:
    """The docs' rule table (id, severity, what it means, how to fix), one row per rule."""
    rows = ["| id | severity | what it means | how to fix |", "|---|---|---|---|"]
    for doc in catalog():
        cells = [f"`{doc.id}`", " / ".join(doc.severities), doc.meaning, doc.fix]
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows) + "\n"
