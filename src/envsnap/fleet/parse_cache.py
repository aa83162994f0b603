"""Reading a thousand node snapshots fast: each distinct top-level section is parsed once.

Nodes of one fleet mostly share their stack, so their files share most of their text: the
``packages`` section of 900 identical nodes is the same 20 KB, while ``meta`` (capture time) and
``host`` (hostname) differ. YAML parsing dominates ``fleet show`` (PyYAML's constructor runs in
Python even with LibYAML), so ``SectionCache`` cuts a file at its top-level keys (lines starting
in column 0: envsnap writes block-style YAML, where anything nested is indented) and parses each
piece through store's own distrustful ``parse_yaml`` (anchors, aliases and tags refused), keeping
the result per distinct text. The pieces are joined into one mapping and validated by
``store.from_builtins`` as a whole file would be. Anything unusual (a flow collection at the top,
a duplicate key, a piece that is not one ``key: value``) falls back to parsing the whole file, so
the result is always what ``store.load`` returns.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from envsnap.snapshot.model import Snapshot

_TOP_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):(?:[ \t]|$)", re.MULTILINE)
MAX_CACHED_CHUNKS = 4096
"""Distinct section texts kept (a fleet has few distinct stacks; a hostile one can't grow it unbounded)."""


class SectionCache:
    """Parses snapshot files, reusing the parse of every section text already seen."""

    def __init__(self) -> None:
        self._parsed: dict[str, Any] = {}
        self._checked: dict[tuple[str, ...], Snapshot] = {}
        self.hits = 0
        self.misses = 0

    def load(self, path: Path) -> Snapshot:
        """Like ``store.load``: a validated snapshot, or BadInput naming the file."""
        return self._load(path)[0]

    def load_checked(self, path: Path) -> tuple[Snapshot, bool]:
        """Like ``snapshot.finalize.checked(store.load(path))``: redacted, fingerprint recomputed.

        Redaction works section by section and the fingerprint leaves out ``meta`` and host
        identity, so a file whose other sections are the text of one seen before gets that one's
        redacted sections and fingerprint; only its ``meta`` and ``host`` are redacted anew.
        """
        import msgspec

        from envsnap.snapshot.finalize import checked
        from envsnap.snapshot.redact import redact_snapshot

        snapshot, key = self._load(path)
        known = self._checked.get(key) if key is not None else None
        if known is None:
            result, _ = checked(snapshot)
            if key is not None and len(self._checked) < MAX_CACHED_CHUNKS:
                self._checked[key] = result
        else:
            own = redact_snapshot(Snapshot(schema=snapshot.schema, meta=snapshot.meta, host=snapshot.host))
            result = msgspec.structs.replace(known, meta=own.meta, host=own.host)
        edited = snapshot.fingerprint is not None and snapshot.fingerprint != result.fingerprint
        return result, edited

    def _load(self, path: Path) -> tuple[Snapshot, tuple[str, ...] | None]:
        from envsnap.snapshot import files, store, yaml_text

        name = str(path)
        text = files.decode_text(files.read_bytes_capped(path, name, regular_only=True), name)
        chunks: dict[str, str] = {}
        data = self._split_parse(text, name, chunks)
        key = None
        if data is None:
            data = yaml_text.parse_yaml(text, name)
        else:
            key = _reuse_key(data, chunks)
        return store.from_builtins(data, name, text), key

    def _split_parse(self, text: str, name: str, chunks: dict[str, str]) -> dict[str, Any] | None:
        from envsnap.errors import BadInput
        from envsnap.snapshot import yaml_text

        starts = [m.start() for m in _TOP_KEY.finditer(text)]
        if not starts:
            return None
        head = text[: starts[0]]
        if any(line.strip() and not line.lstrip().startswith("#") for line in head.splitlines()):
            return None  # a document marker or something else before the first key
        data: dict[str, Any] = {}
        for begin, end in zip(starts, [*starts[1:], len(text)], strict=True):
            chunk = text[begin:end]
            parsed = self._parsed.get(chunk)
            if parsed is None:
                try:
                    parsed = yaml_text.parse_yaml(chunk, name)
                except BadInput:
                    return None  # let the whole-file parse give the real error and line
                if not isinstance(parsed, dict) or len(parsed) != 1:
                    return None
                if len(self._parsed) < MAX_CACHED_CHUNKS:
                    self._parsed[chunk] = parsed
                self.misses += 1
            else:
                self.hits += 1
            ((key, value),) = parsed.items()
            if key in data:
                return None  # duplicate top-level key: the whole-file parser decides
            data[key] = value
            chunks[key] = chunk
        return data


_PER_NODE = ("meta", "fingerprint", "host")
_HOST_IDENTITY = frozenset({"hostname", "memory_total_bytes", "serial", "uuid"})
"""Host fields the fingerprint leaves out (fingerprint.py): they don't stop two nodes sharing a result."""


def _reuse_key(data: dict[str, Any], chunks: dict[str, str]) -> tuple[str, ...] | None:
    """The text that decides a file's redacted sections and fingerprint, apart from meta and host identity."""
    import json

    host = data.get("host")
    if host is not None and not isinstance(host, dict):
        return None
    host_part = json.dumps(
        {k: v for k, v in (host or {}).items() if k not in _HOST_IDENTITY}, sort_keys=True, default=str
    )
    return (host_part, *(f"{k}\0{chunks[k]}" for k in chunks if k not in _PER_NODE))
