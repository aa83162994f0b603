"""Grouping: which nodes share an environment, which group is the reference, and how the others differ.

Nodes are grouped by fingerprint (the stable sections, host identity left out), so every member of
a group has the same stack and one representative speaks for all. The reference is chosen as
``clush --diff`` chooses it: the largest group; on a tie the group of the first node in name
order, and the tie is reported. Each other group is compared with the reference once, with the
layer-aware diff (compare/diff.py: impacts, packages by name, devices by model), and the rules run
once per group, so the findings only that group has can be named. Minority groups come worst
first (breaking before notable before minor), then smallest first: the odd node leads.

The folder is untrusted like any snapshot: node files are read through store's capped reader,
redacted and re-fingerprinted (snapshot/finalize.py); a node whose file can't be read is reported as
failed, never the end of the report. A folder without ``fleet.yaml`` (snapshots gathered by hand)
works too: each ``*.yaml`` is a node named after its file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from envsnap.compare.impact import IMPACT_RANK, LAYERS, Impact, worst
from envsnap.errors import BadInput
from envsnap.fleet.index import FleetIndex, NodeRecord, read_index
from envsnap.fleet.nodes import INDEX_NAME, inside
from envsnap.snapshot.model import Change, Finding, Snapshot

if TYPE_CHECKING:
    from envsnap.fleet.parse_cache import SectionCache

MAX_PLAIN_FOLDER_FILES = 10_000


@dataclass(frozen=True)
class FleetNode:
    """A node as the report sees it: its record and, when collected, its snapshot."""

    record: NodeRecord
    snapshot: Snapshot | None = None

    @property
    def name(self) -> str:
        return self.record.name


@dataclass(frozen=True)
class LoadedFleet:
    """A fleet folder read back: the index (made up for a plain folder) and every node."""

    folder: Path
    index: FleetIndex
    nodes: tuple[FleetNode, ...]
    edited: tuple[str, ...] = ()
    """Node files whose stored fingerprint did not match their content."""


@dataclass(frozen=True)
class Group:
    """Nodes with one fingerprint, and how their stack differs from the reference group's."""

    fingerprint: str
    nodes: tuple[str, ...]
    changes: tuple[Change, ...] = ()
    """Differences from the reference (old = reference, new = this group), worst impact first."""
    findings_only_here: tuple[Finding, ...] = ()
    findings: tuple[Finding, ...] = ()
    """Every finding of the rules on this group's stack."""

    @property
    def impact(self) -> Impact | None:
        return worst(change.impact for change in self.changes)


@dataclass(frozen=True)
class FleetGroups:
    """The answer to "which node is not like the others?"."""

    groups: tuple[Group, ...]
    """The reference (majority) first, then the minority groups, worst first."""
    failed: tuple[NodeRecord, ...] = ()
    tie: bool = False
    """Another group is as large as the reference (the first node's group was taken)."""
    node_group: dict[str, int] = field(default_factory=dict)
    """Index into ``groups`` of each collected node."""

    @property
    def reference(self) -> Group | None:
        return self.groups[0] if self.groups else None

    @property
    def minorities(self) -> tuple[Group, ...]:
        return self.groups[1:]

    @property
    def uniform(self) -> bool:
        """One group and no failed node: every node has the same stack."""
        return len(self.groups) <= 1 and not self.failed


def load_fleet(folder: Path) -> LoadedFleet:
    """Read a fleet folder (``fleet collect``'s, or any folder of snapshots).

    Raises:
        BadInput: not a folder, an unreadable index, or a folder with no snapshots at all.
    """
    if not folder.is_dir():
        raise BadInput(f"{folder}: not a folder")
    index = read_index(folder) if (folder / INDEX_NAME).exists() else _plain_folder_index(folder)
    from envsnap.fleet.parse_cache import SectionCache

    cache = SectionCache()  # identical sections of many nodes are parsed once
    nodes, edited = [], []
    for record in index.nodes:
        if record.status != "ok" or record.file is None:
            nodes.append(FleetNode(record))
            continue
        node, was_edited = _load_node(folder, record, cache)
        nodes.append(node)
        if was_edited:
            edited.append(str(folder / record.file))
    return LoadedFleet(folder, index, tuple(nodes), tuple(edited))


def _plain_folder_index(folder: Path) -> FleetIndex:
    files = sorted(p.name for p in folder.glob("*.yaml") if not p.name.startswith("."))[
        : MAX_PLAIN_FOLDER_FILES + 1
    ]
    if not files:
        raise BadInput(f"{folder}: no {INDEX_NAME} and no snapshot files (*.yaml) in the folder")
    if len(files) > MAX_PLAIN_FOLDER_FILES:
        raise BadInput(f"{folder}: more than {MAX_PLAIN_FOLDER_FILES} files; refusing to read them all")
    records = tuple(NodeRecord(name=Path(name).stem, status="ok", file=name) for name in files)
    return FleetIndex(collected_at="", transport="folder", nodes=records)


def _load_node(folder: Path, record: NodeRecord, cache: SectionCache) -> tuple[FleetNode, bool]:
    assert record.file is not None
    try:
        snapshot, edited = cache.load_checked(inside(folder, record.file))
    except BadInput as err:
        failed = NodeRecord(name=record.name, status="probe-failed", reason=f"snapshot unreadable: {err}")
        return FleetNode(failed), False
    fixed = NodeRecord(
        name=record.name,
        status="ok",
        file=record.file,
        fingerprint=snapshot.fingerprint,
        seconds=record.seconds,
    )
    return FleetNode(fixed, snapshot), edited


def group(nodes: Sequence[FleetNode], *, findings: bool = True) -> FleetGroups:
    """Group the collected nodes by fingerprint and compare every group with the majority.

    Args:
        nodes: the fleet's nodes (failed ones are listed apart).
        findings: run the rules once per group (``findings_only_here``).
    """
    from envsnap.compare.diff import diff

    members: dict[str, list[FleetNode]] = {}
    failed = []
    for node in sorted(nodes, key=lambda n: _natural(n.name)):
        if node.snapshot is None:
            failed.append(node.record)
        else:
            members.setdefault(node.snapshot.fingerprint or "", []).append(node)
    if not members:
        return FleetGroups((), tuple(failed))
    order = list(members)  # first-seen: the group of the first node (in name order) comes first
    sizes = {fp: len(members[fp]) for fp in order}
    reference = max(order, key=lambda fp: (sizes[fp], -order.index(fp)))
    tie = sum(1 for fp in order if sizes[fp] == sizes[reference]) > 1
    base = members[reference][0].snapshot
    assert base is not None
    base_findings = _findings(base) if findings else ()
    base_ids = {f.id for f in base_findings}
    groups = [Group(reference, tuple(n.name for n in members[reference]), (), (), base_findings)]
    others = []
    for fp in order:
        if fp == reference:
            continue
        representative = members[fp][0].snapshot
        assert representative is not None
        changes = tuple(sorted(diff(base, representative), key=_change_order))
        own = _findings(representative) if findings else ()
        others.append(
            Group(
                fp,
                tuple(n.name for n in members[fp]),
                changes,
                tuple(f for f in own if f.id not in base_ids),
                own,
            )
        )
    others.sort(key=lambda g: (IMPACT_RANK.get(g.impact or "", 9), len(g.nodes), _natural(g.nodes[0])))
    groups += others
    node_group = {name: i for i, g in enumerate(groups) for name in g.nodes}
    return FleetGroups(tuple(groups), tuple(failed), tie, node_group)


def _findings(snapshot: Snapshot) -> tuple[Finding, ...]:
    from envsnap.rules import evaluate

    return evaluate(snapshot)


def _change_order(change: Change) -> tuple[int, int, str]:
    layer = LAYERS.index(change.layer) if change.layer in LAYERS else len(LAYERS)
    return (IMPACT_RANK[change.impact], layer, change.path)


def _natural(name: str) -> tuple[object, ...]:
    """``node2`` before ``node10``."""
    import re

    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


@dataclass(frozen=True)
class NodeCheck:
    """One node against a golden snapshot (``envsnap check DIR --against GOLDEN``)."""

    record: NodeRecord
    changes: tuple[Change, ...] | None
    """Differences from the golden snapshot; None when the node has no snapshot."""


def check_against(nodes: Sequence[FleetNode], golden: Snapshot) -> tuple[NodeCheck, ...]:
    """Diff every collected node against ``golden`` (once per fingerprint), in node-name order."""
    from envsnap.compare.diff import diff

    by_fingerprint: dict[str | None, tuple[Change, ...]] = {}
    checks = []
    for node in sorted(nodes, key=lambda n: _natural(n.name)):
        if node.snapshot is None:
            checks.append(NodeCheck(node.record, None))
            continue
        key = node.snapshot.fingerprint
        if key not in by_fingerprint:
            by_fingerprint[key] = tuple(sorted(diff(golden, node.snapshot), key=_change_order))
        checks.append(NodeCheck(node.record, by_fingerprint[key]))
    return tuple(checks)
