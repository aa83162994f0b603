"""Structural, layer-aware diff of two snapshots: ``diff(old, new) -> tuple[Change, ...]``.

Pure: it reads two models and returns ``model.Change`` values; rendering is render/diff.py's job.
Each snapshot is flattened once (flatten.py: match keys, identity left out), the two dicts are
compared with set operations, and every differing path becomes one Change with its layer and
impact (impact.py holds the impact table). A few refinements keep the result readable:

- a removed or added *node* (a package, a device, a section) is one change, not one per field;
- a section that stopped (or started) working is one change, "ok -> skipped: <reason>", instead
  of a list of vanished fields;
- a device removed and another added at the same position of the same vendor is one "model
  changed" change (H100 -> A100), breaking when the compute capability or gfx target differs;
- a package's Requires-Dist and import names are reported only when its version did not change
  (a new release brings new metadata), and package details that one side does not record at
  all (a ``pip freeze`` import has no installer or requirements) are not changes.

``meta``, ``fingerprint`` and ``findings`` are never compared; ``telemetry`` only with
``include_telemetry``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from envsnap.flatten import Flat, flatten
from envsnap.impact import (
    DETAILS_SOMETIMES_UNKNOWN,
    FOLLOWS_THE_VERSION,
    IMPACT_RANK,
    IMPACTS,
    LAYERS,
    Kind,
    impact_of,
    is_noise,
    layer_of,
    section_impact,
)
from envsnap.model import Change, Snapshot

_DEVICE_CAPABILITY = {
    "accelerators.nvidia.devices": ("compute_capability",),
    "accelerators.amd.devices": ("gfx_target",),
    "accelerators.intel.devices": ("device_id",),
    "frameworks.torch.devices": ("capability", "gcn_arch"),
}


def diff(
    old: Snapshot,
    new: Snapshot,
    *,
    include_telemetry: bool = False,
    only: Collection[str] | None = None,
) -> tuple[Change, ...]:
    """Changes from ``old`` to ``new``, sorted by layer, then impact (breaking first), then path.

    Args:
        old: the reference snapshot (known-good, "before").
        new: the snapshot compared against it.
        include_telemetry: also compare the volatile ``telemetry`` section.
        only: keep only changes in these layers (see ``impact.LAYERS``).

    Raises:
        ValueError: ``only`` names a layer that does not exist.
    """
    if only is not None:
        unknown = set(only) - set(LAYERS)
        if unknown:
            raise ValueError(
                f"unknown layer(s): {', '.join(sorted(unknown))}; layers are {', '.join(LAYERS)}"
            )
    return compare(
        flatten(old, include_telemetry=include_telemetry),
        flatten(new, include_telemetry=include_telemetry),
        only,
    )


def compare(a: Flat, b: Flat, only: Collection[str] | None = None) -> tuple[Change, ...]:
    """Changes between two flattened snapshots (see ``diff``)."""
    differing = {path for path, _ in a.values.items() ^ b.values.items()}
    collapsed: set[str] = set()
    changes: list[Change] = []
    for path in sorted(differing):
        if _under(path, collapsed, a, b):
            continue
        in_a, in_b = path in a.values, path in b.values
        kind: Kind = "changed" if in_a and in_b else ("removed" if in_a else "added")
        old, new = a.values.get(path), b.values.get(path)
        schema = a.schema.get(path) or b.schema[path]
        is_section = path in a.sections or path in b.sections
        if kind != "changed" and (path in a.nodes or path in b.nodes):
            collapsed.add(path)
        elif is_section and (old != "ok" or new != "ok"):
            collapsed.add(path)  # one side has no data: its fields vanished with it
        if is_noise(schema, old, new) or (kind != "changed" and schema in DETAILS_SOMETIMES_UNKNOWN):
            continue
        if schema in FOLLOWS_THE_VERSION and (a.parent.get(path) or b.parent.get(path)) in differing:
            continue
        if is_section:
            impact = section_impact(schema, kind, old, new)
        else:
            impact = impact_of(schema, path, kind, old, new)
        changes.append(Change(layer=layer_of(schema), path=path, kind=kind, old=old, new=new, impact=impact))
    changes = _pair_devices(changes, a, b)
    if only is not None:
        changes = [change for change in changes if change.layer in only]
    return tuple(sorted(changes, key=change_order))


def change_order(change: Change) -> tuple[int, int, str]:
    """Layer order, then breaking before notable before minor, then path."""
    layer = LAYERS.index(change.layer) if change.layer in LAYERS else len(LAYERS)
    return (layer, IMPACT_RANK[change.impact], change.path)


def summarize(changes: Iterable[Change]) -> dict[str, int]:
    """Counts per impact and in total: ``{"breaking": 1, "notable": 2, "minor": 0, "total": 3}``."""
    counts: dict[str, int] = dict.fromkeys(IMPACTS, 0)
    for change in changes:
        counts[change.impact] += 1
    counts["total"] = sum(counts.values())
    return counts


def _under(path: str, collapsed: set[str], a: Flat, b: Flat) -> bool:
    """Whether a node above ``path`` was already reported as added, removed or not working."""
    parent = a.parent.get(path) if path in a.parent else b.parent.get(path)
    while parent is not None:
        if parent in collapsed:
            return True
        parent = a.parent.get(parent) if parent in a.parent else b.parent.get(parent)
    return False


def _pair_devices(changes: list[Change], a: Flat, b: Flat) -> list[Change]:
    """Turn "device X removed" + "device Y added" at the same position into "X -> Y"."""
    removed: dict[str, list[Change]] = {}
    added: dict[str, list[Change]] = {}
    for change in changes:
        schema = a.schema.get(change.path) or b.schema.get(change.path)
        is_node = change.path in a.nodes or change.path in b.nodes
        if schema in _DEVICE_CAPABILITY and is_node and change.kind != "changed":
            (removed if change.kind == "removed" else added).setdefault(
                schema + "|" + _container(change.path), []
            ).append(change)
    if not removed or not added:
        return changes
    replaced: dict[int, Change | None] = {}
    for group, gone in removed.items():
        schema = group.partition("|")[0]
        for old_change, new_change in zip(gone, added.get(group, []), strict=False):
            fields = _DEVICE_CAPABILITY[schema]
            old_cap = tuple(a.values.get(f"{old_change.path}.{name}") for name in fields)
            new_cap = tuple(b.values.get(f"{new_change.path}.{name}") for name in fields)
            same = old_cap == new_cap and any(value is not None for value in old_cap)
            paired = Change(
                layer=old_change.layer,
                path=old_change.path,
                kind="changed",
                old=old_change.old,
                new=new_change.new,
                impact="notable" if same else "breaking",
            )
            replaced[id(old_change)] = paired
            replaced[id(new_change)] = None
    result: list[Change] = []
    for change in changes:
        if id(change) not in replaced:
            result.append(change)
        elif (pair := replaced[id(change)]) is not None:
            result.append(pair)
    return result


def _container(path: str) -> str:
    return path[: path.rindex("[")]
