"""The fleet view: N snapshots at once, each field that differs anywhere, its majority and the outliers.

``envsnap diff a.yaml b.yaml c.yaml ...`` answers "which of these hosts is not like the others?".
It must stay fast for hundreds of snapshots with thousands of packages each, so it never diffs
pairs: every snapshot is flattened once (flatten.py), the first one is the reference, and a
C-level symmetric difference of ``dict.items()`` against each other snapshot collects the paths
that differ anywhere. Only those paths are then read on every host: O(N x fields) set work plus
O(N x differing fields) lookups, instead of O(N^2) diffs.

Unknown is not absent: a host whose snapshot lacks a whole section (an imported report) has an
UNKNOWN value for every field in it; it neither counts toward the majority nor deviates from it,
and the report lists those sections per host (``not_compared``). A host that has the section but
not the field (a package not installed) is ABSENT, which is a value like any other.

Majority ties (two values held by equally many hosts) are flagged as such; the value held by the
earliest host in the given order is reported as the majority, so the output never depends on
hash order.

Pure, like compare/diff.py: labels and snapshots in, a FleetReport out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envsnap.compare.diff import absent_sections, has_section, is_unknown_in, section_key, section_layers
from envsnap.compare.flatten import Flat, flatten
from envsnap.compare.impact import (
    DETAILS_SOMETIMES_UNKNOWN,
    FOLLOWS_THE_VERSION,
    IMPACT_RANK,
    LAYERS,
    Impact,
    Kind,
    impact_of,
    is_noise,
    is_unknown_value,
    layer_of,
    section_impact,
    worst,
)
from envsnap.snapshot.model import Snapshot


class _Absent:
    """The value of a field on a host that does not have it."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


class _Unknown:
    """The value of a field on a host whose snapshot does not record that section at all."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


@dataclass(frozen=True)
class FleetField:
    """One field that is not the same on every host."""

    layer: str
    path: str
    values: tuple[Any, ...]
    """The value on each host, in host order; ``ABSENT`` where the host does not have it,
    ``UNKNOWN`` where its snapshot does not record the section."""
    majority: Any
    majority_count: int
    deviants: tuple[int, ...]
    """Indexes of the hosts whose value is not the majority value."""
    impact: Impact
    """The worst impact of any deviating value against the majority."""
    tie: bool = False
    """Another value is held by as many hosts as the majority (the earliest host's value won)."""
    unknown: tuple[int, ...] = ()
    """Indexes of the hosts that do not record this field's section (not compared)."""


@dataclass(frozen=True)
class FleetReport:
    """Every differing field across a set of snapshots."""

    hosts: tuple[str, ...]
    fingerprints: tuple[str | None, ...]
    fields: tuple[FleetField, ...]
    not_compared: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """Sections some hosts' snapshots lack, with the indexes of those hosts."""

    def deviating_hosts(self) -> dict[str, int]:
        """How many fields each host deviates from the majority on (hosts that never do are left out)."""
        counts: Counter[str] = Counter()
        for field in self.fields:
            counts.update(self.hosts[index] for index in field.deviants)
        return dict(counts.most_common())


def host_labels(snapshots: Sequence[Snapshot], files: Sequence[str]) -> tuple[str, ...]:
    """A label per snapshot: host alias, else hostname, else the file's stem.

    A label that repeats gets its file name (``gpu01 (monday.yaml)``); one that still repeats
    (the same file name in two folders) gets ``#2``, ``#3``.
    """
    labels = []
    for snapshot, file in zip(snapshots, files, strict=True):
        hostname = snapshot.host.hostname if snapshot.host is not None else None
        labels.append(snapshot.meta.host_alias or hostname or Path(file).stem)
    counts = Counter(labels)
    labels = [
        label if counts[label] == 1 else f"{label} ({Path(file).name})"
        for label, file in zip(labels, files, strict=True)
    ]
    seen: Counter[str] = Counter()
    unique = []
    for label in labels:
        seen[label] += 1
        unique.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return tuple(unique)


def fleet(
    snapshots: Sequence[Snapshot],
    labels: Sequence[str],
    *,
    include_telemetry: bool = False,
    only: Collection[str] | None = None,
) -> FleetReport:
    """Compare any number of snapshots field by field against the majority.

    Args:
        snapshots: two or more snapshots.
        labels: one label per snapshot (see ``host_labels``).
        include_telemetry: also compare the volatile ``telemetry`` section.
        only: keep only fields in these layers.
    """
    if len(snapshots) != len(labels):
        raise ValueError("one label per snapshot")
    if only is not None and set(only) - set(LAYERS):
        raise ValueError(f"unknown layer(s): {', '.join(sorted(set(only) - set(LAYERS)))}")
    flats = [flatten(snapshot, include_telemetry=include_telemetry) for snapshot in snapshots]
    absent = [absent_sections(snapshot, include_telemetry=include_telemetry) for snapshot in snapshots]
    everywhere = frozenset.intersection(*absent) if absent else frozenset()
    unknown_somewhere = frozenset().union(*absent) - everywhere
    reference = flats[0].values.items()
    differing: set[str] = set()
    for flat in flats[1:]:
        differing.update(path for path, _ in reference ^ flat.values.items())
    collapsed: set[str] = set()
    fields: list[FleetField] = []
    for path in sorted(differing):
        values = tuple(flat.values.get(path, ABSENT) for flat in flats)
        if unknown_somewhere and is_unknown_in(path, unknown_somewhere):
            values = tuple(
                UNKNOWN if is_unknown_in(path, absent[i]) else value for i, value in enumerate(values)
            )
        owner = next(flat for flat in flats if path in flat.values)
        schema = owner.schema[path]
        if path in owner.nodes and (ABSENT in values or (path in owner.sections and _any_not_ok(values))):
            collapsed.add(path)
        if _explained_by_parent(path, values, owner, flats, collapsed):
            continue
        if schema in FOLLOWS_THE_VERSION and owner.parent.get(path) in differing:
            continue
        field = _field(path, schema, values, path in owner.sections)
        if field is not None:
            fields.append(field)
    if only is not None:
        fields = [field for field in fields if field.layer in only]
    fields.sort(
        key=lambda f: (LAYERS.index(f.layer) if f.layer in LAYERS else 99, IMPACT_RANK[f.impact], f.path)
    )
    not_known = tuple(
        (section, tuple(i for i, lacking in enumerate(absent) if section in lacking))
        for section in sorted(unknown_somewhere, key=section_key)
        if (only is None or section_layers(section) & set(only))
        and any(has_section(snapshot, section) for snapshot in snapshots)
    )
    return FleetReport(
        tuple(labels), tuple(s.fingerprint for s in snapshots), tuple(fields), not_compared=not_known
    )


def _any_not_ok(values: tuple[Any, ...]) -> bool:
    return any(value != "ok" for value in values if value is not UNKNOWN)


def _explained_by_parent(
    path: str, values: tuple[Any, ...], owner: Flat, flats: Sequence[Flat], collapsed: set[str]
) -> bool:
    """A field under a node that is missing (or not working) on some hosts, equal wherever it exists."""
    parent = owner.parent.get(path)
    while parent is not None:
        if parent in collapsed:
            present = {
                value
                for value, flat in zip(values, flats, strict=True)
                if flat.values.get(parent, ABSENT) is not ABSENT
                and (parent not in owner.sections or flat.values[parent] == "ok")
            }
            return len(present) <= 1
        parent = owner.parent.get(parent)
    return False


def _field(path: str, schema: str, values: tuple[Any, ...], is_section: bool) -> FleetField | None:
    detail = schema in DETAILS_SOMETIMES_UNKNOWN  # hosts that don't record the detail don't deviate

    def compared(value: Any) -> bool:
        return not (value is UNKNOWN or (detail and value is ABSENT) or is_unknown_value(schema, value))

    counts = Counter(value for value in values if compared(value))  # insertion order: host order
    if not counts:
        return None
    ranked = counts.most_common()  # stable: equal counts keep the earliest host's value first
    majority, majority_count = ranked[0]
    tie = len(ranked) > 1 and ranked[1][1] == majority_count
    deviants = tuple(
        i
        for i, value in enumerate(values)
        if compared(value) and value != majority and not is_noise(schema, majority, value)
    )
    if not deviants:
        return None
    unknown = tuple(i for i, value in enumerate(values) if value is UNKNOWN)
    impacts = []
    for value in {values[i] for i in deviants}:
        kind: Kind = "added" if majority is ABSENT else ("removed" if value is ABSENT else "changed")
        old = None if majority is ABSENT else majority
        new = None if value is ABSENT else value
        impacts.append(
            section_impact(schema, kind, old, new) if is_section else impact_of(schema, path, kind, old, new)
        )
    impact = worst(impacts) or "minor"
    return FleetField(
        layer_of(schema), path, values, majority, majority_count, deviants, impact, tie, unknown
    )
