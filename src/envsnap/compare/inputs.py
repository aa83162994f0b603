"""Snapshots read for comparison (``diff``, ``check --against``): redacted, fingerprint recomputed.

A snapshot file is untrusted input: it may have been edited by hand or written by another tool.
Two things in it are not taken on faith before a report shows them:

- secrets: ``save`` redacts before writing, but a hand-edited file may hold a token, so every
  loaded snapshot goes through ``redact.redact_snapshot`` again, as ``show`` does;
- the fingerprint: it is what the reports print to say "these two are the same environment",
  so it is recomputed from the (redacted) content. A stored one that differs means the file
  was changed after it was written; the caller says so once and the recomputed one is used.

Redacting a snapshot that ``save`` wrote changes nothing, so its recomputed fingerprint is the
stored one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec

from envsnap import api
from envsnap.snapshot.fingerprint import fingerprint
from envsnap.snapshot.model import Snapshot
from envsnap.snapshot.redact import redact_snapshot

MISMATCH = "stored fingerprint does not match the content (edited by hand?); using the recomputed one"


def checked(snapshot: Snapshot) -> tuple[Snapshot, bool]:
    """The snapshot redacted, with a recomputed fingerprint, and whether the stored one differed."""
    redacted = redact_snapshot(snapshot)
    computed = fingerprint(redacted)
    edited = snapshot.fingerprint is not None and snapshot.fingerprint != computed
    return msgspec.structs.replace(redacted, fingerprint=computed), edited


def load_checked(paths: Sequence[str | Path]) -> tuple[list[Snapshot], list[str]]:
    """Load (``-``: standard input), redact and re-fingerprint each file.

    Returns:
        The snapshots, and the files whose stored fingerprint did not match their content.

    Raises:
        BadInput: a file cannot be read or is not a valid snapshot.
    """
    snapshots: list[Snapshot] = []
    edited: list[str] = []
    for path in paths:
        snapshot, changed = checked(api.load(path))
        snapshots.append(snapshot)
        if changed:
            edited.append(str(path))
    return snapshots, edited


def mismatch_warning(files: Sequence[str]) -> str | None:
    """One line for stderr naming every file whose stored fingerprint was wrong, or None."""
    if not files:
        return None
    shown = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    return f"envsnap: warning: {shown}: {MISMATCH}"
