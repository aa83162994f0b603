"""The environment fingerprint: equal stacks get equal fingerprints, whatever host they run on.

It is a sha256 over the canonical JSON of the stable sections (model.STABLE_SECTIONS), with host
identity left out: the hostname, device serials and UUIDs, usernames in paths, and the host's
memory size (firmware reserves a slightly different amount on identical machines). Volatile
data (``meta``, ``telemetry``) and derived data (``findings``) are not part of it, and neither is
the probe's own bookkeeping (``extensions.scanned_files``: how many files were read, not what
the stack is; a cache hit or an extra pure-Python package changes it).
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from envsnap.snapshot.model import STABLE_SECTIONS, Snapshot
from envsnap.snapshot.redact import mask_user_paths

_IDENTITY_KEYS = frozenset({"hostname", "serial", "uuid"})


def _strip_identity(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_identity(v) for k, v in value.items() if k not in _IDENTITY_KEYS}
    if isinstance(value, (list, tuple)):
        return [_strip_identity(v) for v in value]
    if isinstance(value, str):
        # The substring test skips the regex for the tens of thousands of strings without a home path.
        return mask_user_paths(value) if ("/home/" in value or "Users" in value) else value
    return value


def fingerprint(snapshot: Snapshot) -> str:
    """``sha256:<hex>`` of the snapshot's stable, identity-free content."""
    stable: dict[str, Any] = {}
    for name in STABLE_SECTIONS:
        section = getattr(snapshot, name)
        if section is not None:
            stable[name] = msgspec.to_builtins(section)
    host = stable.get("host")
    if isinstance(host, dict):
        host.pop("memory_total_bytes", None)
    extensions = stable.get("extensions")
    if isinstance(extensions, dict):
        extensions.pop("scanned_files", None)
    canonical = msgspec.json.encode(_strip_identity(stable), order="sorted")
    return "sha256:" + hashlib.sha256(canonical).hexdigest()
