"""The last step every snapshot takes, probed or imported: normalized, fingerprinted, redacted.

Shared by the collector (a live snapshot) and the importers (a pasted report), so both produce the
same canonical form: the fingerprint of an imported report equals that of the same stack probed.

A snapshot file read back is untrusted (edited by hand, or written by another tool), so ``checked``
redoes the two steps a report relies on before showing it: secrets are redacted again (a hand-edited
file may hold a token) and the fingerprint, which reports print to say "these two are the same
environment", is recomputed from the redacted content. A stored one that differs means the file was
changed after it was written; the caller says so once (``MISMATCH``) and uses the recomputed one.
Redacting a snapshot that ``save`` wrote changes nothing, so its recomputed fingerprint is the stored one.
"""

from __future__ import annotations

from datetime import datetime, timezone

import msgspec

from envsnap.snapshot.fingerprint import fingerprint
from envsnap.snapshot.model import Snapshot
from envsnap.snapshot.normalize import normalize
from envsnap.snapshot.redact import anonymize, redact_snapshot


def utc_now() -> str:
    """The capture-time format used in ``meta.captured_at``."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def finalize(snapshot: Snapshot, *, anonymize_identity: bool = False) -> Snapshot:
    """Sort, redact, optionally anonymize, and fingerprint a snapshot from any source."""
    snapshot = redact_snapshot(normalize(snapshot))
    if anonymize_identity:
        snapshot = anonymize(snapshot)
    return msgspec.structs.replace(snapshot, fingerprint=fingerprint(snapshot))


MISMATCH = "stored fingerprint does not match the content (edited by hand?); using the recomputed one"


def checked(snapshot: Snapshot) -> tuple[Snapshot, bool]:
    """The snapshot redacted, with a recomputed fingerprint, and whether the stored one differed."""
    redacted = redact_snapshot(snapshot)
    computed = fingerprint(redacted)
    edited = snapshot.fingerprint is not None and snapshot.fingerprint != computed
    return msgspec.structs.replace(redacted, fingerprint=computed), edited
