"""A paste as the tests of the pasted-report rounds read it: the snapshot, the findings, the messages."""

from __future__ import annotations

from envsnap.importers import messages
from envsnap.importers.auto import parse_auto
from envsnap.rules import evaluate
from envsnap.snapshot.finalize import finalize
from envsnap.snapshot.model import Snapshot

NOW = "2026-01-01T00:00:00Z"


def snapshot_of(text: str) -> Snapshot:
    """``text`` imported as ``envsnap check`` imports a paste (not yet finalized)."""
    return parse_auto(text, "paste.txt", captured_at=NOW)


def findings_of(text: str) -> set[tuple[str, str]]:
    """``(rule id, severity)`` of every finding on the paste."""
    return {(f.id, str(f.severity)) for f in evaluate(finalize(snapshot_of(text)))}


def kinds_of(text: str) -> list[str]:
    """The kinds of the printed messages recognised in the paste, in order."""
    return [m.kind for m in messages.scan(text).messages]
