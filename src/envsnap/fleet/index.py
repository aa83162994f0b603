"""``DIR/fleet.yaml``: the index of a fleet collection — which nodes, how each went, where its snapshot is.

Written last and atomically by ``fleet collect`` (after every node's file), so a folder with an
index is a complete collection. Read back with the same distrust as a snapshot: store's capped,
alias- and tag-free YAML reader, a typed conversion, and node file names that must be plain names
inside the folder (nodes.inside), so an edited index cannot point ``fleet show`` at ``/etc/shadow``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import msgspec

from envsnap.errors import BadInput
from envsnap.fleet.nodes import INDEX_NAME, inside

INDEX_FORMAT = 1
"""Version of the index layout; a newer one is refused with a message, as snapshots are."""

Status = Literal["ok", "unreachable", "timed-out", "envsnap-missing", "probe-failed"]
STATUSES: tuple[Status, ...] = ("ok", "unreachable", "timed-out", "envsnap-missing", "probe-failed")


class NodeRecord(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One node of the collection."""

    name: str
    status: Status
    file: str | None = None
    """The node's snapshot, a file name inside the folder; only when status is ``ok``."""
    fingerprint: str | None = None
    reason: str | None = None
    """Why the node has no snapshot, in one line (the end of what it printed on stderr)."""
    seconds: float | None = None
    """How long the node took, as the transport measured it."""


class FleetIndex(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The whole collection: when, how, and every node."""

    fleet: int = INDEX_FORMAT
    collected_at: str
    """UTC time the collection started, ISO 8601 with ``Z``."""
    transport: str
    command: str | None = None
    """What ran on the nodes, as a command line."""
    nodes: tuple[NodeRecord, ...] = ()


INDEX_MARKER = "# envsnap fleet index"
INDEX_HEADER = f"{INDEX_MARKER}: one entry per node; the node snapshots sit next to it\n"


def write_index(folder: Path, index: FleetIndex) -> Path:
    """Write ``folder/fleet.yaml`` atomically (a link or a file envsnap did not write is refused)."""
    from envsnap.snapshot import files, yaml_text

    path = folder / INDEX_NAME
    data = {"fleet": index.fleet, **msgspec.to_builtins(index)}  # always written, default or not
    for node in data.get("nodes", ()):
        if "reason" in node:  # what a node printed: always a quoted scalar
            node["reason"] = yaml_text.QuotedText(node["reason"])
    files.write_owned(path, INDEX_HEADER + yaml_text.to_yaml(data), marker=INDEX_MARKER)
    return path


def read_index(folder: Path) -> FleetIndex:
    """Read and check ``folder/fleet.yaml``.

    Raises:
        BadInput: unreadable, not YAML, a newer format, wrong types, or a node file outside the folder.
    """
    from envsnap.snapshot import files, yaml_text

    path = folder / INDEX_NAME
    name = str(path)
    text = files.decode_text(files.read_bytes_capped(path, name, regular_only=True), name)
    data = yaml_text.parse_yaml(text, name)
    if not isinstance(data, dict) or "fleet" not in data:
        raise BadInput(f"{name}: not an envsnap fleet index (no 'fleet' format number at the top)")
    version = data.get("fleet")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise BadInput(f"{name}: unknown fleet index format {version!r}")
    if version > INDEX_FORMAT:
        raise BadInput(f"{name}: written by a newer envsnap (fleet format {version}); upgrade envsnap")
    try:
        index = msgspec.convert(data, FleetIndex)
    except msgspec.ValidationError as err:
        raise BadInput(f"{name}: invalid fleet index: {err}") from err
    for node in index.nodes:
        if node.file is not None:
            inside(folder, node.file)  # refuses ../ and absolute paths
    return _redacted(index)


def _redacted(index: FleetIndex) -> FleetIndex:
    """The index with what nodes said redacted again: an edited ``fleet.yaml`` may hold a secret."""
    from envsnap.snapshot.redact import redact_text

    nodes = tuple(
        msgspec.structs.replace(node, reason=redact_text(node.reason)) if node.reason else node
        for node in index.nodes
    )
    command = redact_text(index.command) if index.command else index.command
    return msgspec.structs.replace(index, nodes=nodes, command=command)
