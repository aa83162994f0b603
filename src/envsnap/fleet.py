"""The fleet view: N snapshots at once, each field that differs anywhere, its majority and the outliers.

``envsnap diff a.yaml b.yaml c.yaml ...`` answers "which of these hosts is not like the others?".
It must stay fast for hundreds of snapshots with thousands of packages each, so it never diffs
pairs: every snapshot is flattened once (flatten.py), the first one is the reference, and a
C-level symmetric difference of ``dict.items()`` against each other snapshot collects the paths
that differ anywhere. Only those paths are then read on every host: O(N x fields) set work plus
O(N x differing fields) lookups, instead of O(N^2) diffs.

Pure, like diff.py: labels and snapshots in, a FleetReport out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envsnap.flatten import Flat, flatten
from envsnap.impact import (
    DETAILS_SOMETIMES_UNKNOWN,
    FOLLOWS_THE_VERSION,
    IMPACT_RANK,
    LAYERS,
    Impact,
    Kind,
    impact_of,
    is_noise,
    layer_of,
    section_impact,
    worst,
)
from envsnap.model import Snapshot


class _Absent:
    """The value of a field on a host that does not have it."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


@dataclass(frozen=True)
class FleetField:
    """One field that is not the same on every host."""

    layer: str
    path: str
    values: tuple[Any, ...]
    """The value on each host, in host order; ``ABSENT`` where the host does not have it."""
    majority: Any
    majority_count: int
    deviants: tuple[int, ...]
    """Indexes of the hosts whose value is not the majority value."""
    impact: Impact
    """The worst impact of any deviating value against the majority."""


@dataclass(frozen=True)
class FleetReport:
    """Every differing field across a set of snapshots."""

    hosts: tuple[str, ...]
    fingerprints: tuple[str | None, ...]
    fields: tuple[FleetField, ...]

    def deviating_hosts(self) -> dict[str, int]:
        """How many fields each host deviates from the majority on (hosts that never do are left out)."""
        counts: Counter[str] = Counter()
        for field in self.fields:
            counts.update(self.hosts[index] for index in field.deviants)
        return dict(counts.most_common())


def host_labels(snapshots: Sequence[Snapshot], files: Sequence[str]) -> tuple[str, ...]:
    """A label per snapshot: host alias, else hostname, else the file's stem; repeats get the stem."""
    labels = []
    for snapshot, file in zip(snapshots, files, strict=True):
        hostname = snapshot.host.hostname if snapshot.host is not None else None
        labels.append(snapshot.meta.host_alias or hostname or Path(file).stem)
    counts = Counter(labels)
    labels = [
        label if counts[label] == 1 or label == Path(file).stem else f"{label} ({Path(file).stem})"
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
    reference = flats[0].values.items()
    differing: set[str] = set()
    for flat in flats[1:]:
        differing.update(path for path, _ in reference ^ flat.values.items())
    collapsed: set[str] = set()
    fields: list[FleetField] = []
    for path in sorted(differing):
        values = tuple(flat.values.get(path, ABSENT) for flat in flats)
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
    return FleetReport(tuple(labels), tuple(s.fingerprint for s in snapshots), tuple(fields))


def _any_not_ok(values: tuple[Any, ...]) -> bool:
    return any(value != "ok" for value in values)


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
    known = schema in DETAILS_SOMETIMES_UNKNOWN  # hosts that don't record the detail don't deviate
    counts = Counter(value for value in values if not (known and value is ABSENT))
    if not counts:
        return None
    majority, majority_count = counts.most_common(1)[0]
    deviants = tuple(
        i
        for i, value in enumerate(values)
        if value != majority and not is_noise(schema, majority, value) and not (known and value is ABSENT)
    )
    if not deviants:
        return None
    impacts = []
    for value in {values[i] for i in deviants}:
        kind: Kind = "added" if majority is ABSENT else ("removed" if value is ABSENT else "changed")
        old = None if majority is ABSENT else majority
        new = None if value is ABSENT else value
        impacts.append(
            section_impact(schema, kind, old, new) if is_section else impact_of(schema, path, kind, old, new)
        )
    impact = worst(impacts) or "minor"
    return FleetField(layer_of(schema), path, values, majority, majority_count, deviants, impact)
