"""Snapshot files: deterministic YAML out, distrustful YAML in.

Writing: model field order is file order, lists are already in natural order (normalize.py), no
anchors or aliases, multi-line text as block scalars, LibYAML's emitter when present. Files are
replaced atomically (temp file in the same folder, fsync, rename), so a killed ``save`` leaves the
old file or none, never half of one.

Reading: a snapshot may come from another machine or another person, so it is untrusted. Files
over a size cap, binary data, YAML tags, anchors and aliases (an "alias bomb" is refused before it
is expanded), unknown or newer schema versions and wrong types are each refused with a one-line
``BadInput`` naming the file and, where known, the line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import yaml

from envsnap._version import __version__
from envsnap.errors import BadInput
from envsnap.snapshot.files import decode_text, read_bytes_capped, write_atomic
from envsnap.snapshot.model import SCHEMA_VERSION, Snapshot
from envsnap.snapshot.yaml_text import _Loader, parse_yaml, paused_gc, to_yaml

SNAPSHOT_MAX_MB_DEFAULT = 256
"""Default cap on a snapshot file, in MiB: a 50k-package snapshot is about 30 MB, and a snapshot
costs roughly 20× its size in memory while loaded, so 256 MiB stays within a workstation's memory."""

SNAPSHOT_MAX_MB_ENV = "ENVSNAP_MAX_SNAPSHOT_MB"
"""Environment variable that overrides the snapshot cap (MiB), e.g. for a 500k-package mirror."""


def snapshot_max_bytes() -> int:
    """The snapshot size cap: ``$ENVSNAP_MAX_SNAPSHOT_MB`` MiB when set to a positive number, else 256 MiB.

    Raises:
        BadInput: the variable is set to something that is not a positive integer.
    """
    raw = os.environ.get(SNAPSHOT_MAX_MB_ENV)
    if raw is None or not raw.strip():
        return SNAPSHOT_MAX_MB_DEFAULT * 1024 * 1024
    try:
        megabytes = int(raw)
    except ValueError:
        megabytes = 0
    if megabytes <= 0:
        raise BadInput(f"{SNAPSHOT_MAX_MB_ENV}={raw[:40]!r}: expected a positive number of MiB")
    return megabytes * 1024 * 1024


# ---------------------------------------------------------------------------- writing


def to_builtins(snapshot: Snapshot) -> dict[str, Any]:
    """The snapshot as plain dicts and lists, in file order, ``None`` fields left out."""
    data = msgspec.to_builtins(snapshot)
    assert isinstance(data, dict)
    return data


def dumps(snapshot: Snapshot) -> str:
    """Serialize a snapshot to deterministic YAML text."""
    header = f"# envsnap snapshot (schema {snapshot.schema}), written by envsnap {__version__}"
    return f"{header}\n{to_yaml(to_builtins(snapshot))}"


def save(snapshot: Snapshot, path: Path, *, create_folder: bool = False) -> Path:
    """Write ``snapshot`` to ``path`` atomically and return the path (folders: see ``write_atomic``)."""
    write_atomic(path, dumps(snapshot), create_folder=create_folder)
    return path


# ---------------------------------------------------------------------------- reading

Migration = Callable[[dict[str, Any]], dict[str, Any]]


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2 only added optional ``meta.origin`` fields (sections, partial, missing, messages)."""
    return data


MIGRATIONS: dict[int, Migration] = {1: _v1_to_v2}
"""``MIGRATIONS[n]`` turns a schema-n document into a schema-(n+1) one."""


def load(path: Path | str) -> Snapshot:
    """Read and validate a snapshot file.

    Raises:
        BadInput: with a one-line message naming the file (and line where known).
    """
    name = str(path)
    return loads(decode_text(read_bytes_capped(Path(path), name, snapshot_max_bytes()), name), name)


def loads(text: str, name: str = "<snapshot>") -> Snapshot:
    """Parse and validate snapshot YAML text.

    Raises:
        BadInput: with a one-line message naming ``name`` (and line where known).
    """
    with paused_gc():
        return from_builtins(parse_yaml(text, name, snapshot_max_bytes()), name, text)


_YAML_KINDS = {
    "str": "a YAML string",
    "list": "a YAML list",
    "int": "a YAML number",
    "float": "a YAML number",
    "bool": "a YAML boolean",
}


def from_builtins(data: Any, name: str = "<snapshot>", text: str | None = None) -> Snapshot:
    """Check the schema version, migrate, and convert plain data into a Snapshot.

    Raises:
        BadInput: not a mapping, missing/unknown/newer schema, or wrong types.
    """
    if not isinstance(data, dict):
        kind = "empty" if data is None else _YAML_KINDS.get(type(data).__name__, "not a mapping")
        raise BadInput(f"{name}: not an envsnap snapshot (the document is {kind}, expected a mapping)")
    if "report" in data and "verdict" in data:
        # The file is hostile: its own `report` value is only used to pick one of two known names.
        kind = {"envsnap-run": "`envsnap run`", "envsnap-watch": "`envsnap watch`"}.get(
            str(data["report"]), "`envsnap run`/`watch`"
        )
        shown = "REPORT" if name.startswith("<") else name  # <stdin> is no file to open
        raise BadInput(f"{name}: this is an {kind} report, not a snapshot; `envsnap tui {shown}` shows it")
    version = data.get("schema")
    if "schema" not in data:
        raise BadInput(f"{name}: not an envsnap snapshot (no 'schema' version at the top)")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise BadInput(
            f"{name}: unknown snapshot schema {version!r} (expected an integer from 1 to {SCHEMA_VERSION})"
        )
    if version > SCHEMA_VERSION:
        raise BadInput(
            f"{name}: written by a newer envsnap (schema {version}); envsnap {__version__} reads schema "
            f"{SCHEMA_VERSION} and older. Upgrade envsnap to read it."
        )
    while version < SCHEMA_VERSION:
        data = MIGRATIONS[version](data)
        version += 1
        data["schema"] = version
    try:
        return msgspec.convert(data, Snapshot)
    except msgspec.ValidationError as err:
        message = str(err)
        line = _line_of(text, message) if text is not None else None
        where = f":{line}" if line is not None else ""
        raise BadInput(f"{name}{where}: invalid snapshot: {message}") from err


_PATH_IN_ERROR = re.compile(r"- at `\$(?P<path>[^`]*)`")
_PATH_PART = re.compile(r"\.(?P<key>[A-Za-z_][A-Za-z0-9_]*)|\[(?P<index>\d+)\]|\[(?P<quoted>\.\.\.|[^\]]*)\]")


def _line_of(text: str, message: str) -> int | None:
    """Best effort: the line of the node a validation error points at (only runs on errors)."""
    found = _PATH_IN_ERROR.search(message)
    if found is None:
        return None
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return None
    for part in _PATH_PART.finditer(found.group("path")):
        if node is None:
            return None
        if part.group("key") is not None and isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if getattr(k, "value", None) == part.group("key")), None)
        elif part.group("index") is not None and isinstance(node, yaml.SequenceNode):
            index = int(part.group("index"))
            node = node.value[index] if index < len(node.value) else None
        else:
            break
    return None if node is None else int(node.start_mark.line) + 1
