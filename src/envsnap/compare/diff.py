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

Unknown is not removed: a section absent from one file (``None``: an ``import pip-freeze``
snapshot has no ``host``, an ``import nvidia-smi-xml`` one no ``packages``) says nothing about
that layer, so it is not compared at all, and ``not_compared`` names it for the report. Inside
``accelerators`` and ``toolkits`` the same holds per vendor or toolkit (a probe always records
every one, with its status); inside ``frameworks`` only for imported snapshots, because a probe
leaves out the frameworks it did not find installed, and "jax removed" is a real change. A
section that is present with status ``skipped`` or ``failed`` is known and is compared. A
package whose version is empty (an imported ``name @ url`` line) has an unknown version too.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Protocol

from envsnap.compare.flatten import Flat, flatten
from envsnap.compare.impact import (
    DETAILS_SOMETIMES_UNKNOWN,
    FOLLOWS_THE_VERSION,
    IMPACT_RANK,
    IMPACTS,
    LAYERS,
    Kind,
    impact_of,
    is_noise,
    is_unknown_value,
    layer_of,
    section_impact,
)
from envsnap.snapshot.model import STABLE_SECTIONS, Change, Snapshot

_DEVICE_CAPABILITY = {
    "accelerators.nvidia.devices": ("compute_capability",),
    "accelerators.amd.devices": ("gfx_target",),
    "accelerators.intel.devices": ("device_id",),
    "frameworks.torch.devices": ("capability", "gcn_arch"),
}
_PER_ITEM = ("accelerators", "toolkits")
"""Containers whose every vendor or toolkit a probe records, so a missing one is unknown."""
_SECTION_PREFIX = re.compile(r"[^.\[]+(?:\.[^.\[]+)?")


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
    one_sided = absent_sections(old, include_telemetry=include_telemetry) ^ absent_sections(
        new, include_telemetry=include_telemetry
    )
    changes = compare(
        flatten(old, include_telemetry=include_telemetry),
        flatten(new, include_telemetry=include_telemetry),
        only,
        unknown=one_sided,
    )
    if _imported(old) or _imported(new):
        changes = tuple(
            c
            for c in changes
            if not unknown_in_import(
                c,
                freeze_old=_frozen(old),
                freeze_new=_frozen(new),
                subset_old=_selected_packages(old),
                subset_new=_selected_packages(new),
            )
        )
    return changes


_PACKAGE_LISTS = frozenset({"pip list", "pip freeze", "conda list"})


def _selected_packages(snapshot: Snapshot) -> bool:
    """Whether the package list is collect_env's selection (torch, numpy, ...), not every package."""
    origin = snapshot.meta.origin
    if origin is None or origin.kind != "import":
        return False
    if origin.format == "collect-env":
        return True
    return origin.format == "auto" and not _PACKAGE_LISTS & set(origin.sections or ())


def _imported(snapshot: Snapshot) -> bool:
    return snapshot.meta.origin is not None and snapshot.meta.origin.kind == "import"


def _frozen(snapshot: Snapshot) -> bool:
    """Whether the package list came from ``pip freeze``, which leaves out pip's own tools."""
    origin = snapshot.meta.origin
    if origin is None or origin.kind != "import":
        return False
    return origin.format == "pip-freeze" or "pip freeze" in (origin.sections or ())


_FREEZE_OMITS = frozenset({"pip", "setuptools", "wheel", "distribute"})
"""What ``pip freeze`` leaves out unless given ``--all``."""
_SPELLING = re.compile(r"[\s_-]+")


def same_value(schema: str, old: object, new: object) -> bool:
    """Whether two values are one fact written two ways (``glibc 2.36`` / ``glibc-2.36``)."""
    if not isinstance(old, str) or not isinstance(new, str) or not schema.startswith("host."):
        return False
    a, b = _SPELLING.sub(" ", old.strip().lower()), _SPELLING.sub(" ", new.strip().lower())
    if a == b:
        return True
    if schema == "host.os_name":  # "Ubuntu" (os-release NAME) vs "Ubuntu 22.04.4 LTS" (collect_env)
        return a.startswith(b + " ") or b.startswith(a + " ")
    return False


def unknown_in_import(
    change: Change,
    *,
    freeze_old: bool = False,
    freeze_new: bool = False,
    subset_old: bool = False,
    subset_new: bool = False,
) -> bool:
    """A change that only says what an imported report does not carry, not what differs.

    A field one side lacks inside a node both sides have (a report has no installer, no kernel
    version) is not compared; equal values written two ways are equal; where the data was read
    from (NVML or a report) is no change of the stack; a package missing from collect_env's
    selection of "relevant libraries" is not removed; and the packages ``pip freeze`` leaves out
    are not removed (or added) by it.
    """
    if change.kind != "changed" and not change.path.endswith("]"):
        return True  # a field, not a package or device: the report simply doesn't carry it
    if change.kind == "changed" and (
        same_value(change.path, change.old, change.new) or change.path.endswith(".source")
    ):
        return True
    if change.path.startswith("packages[") and change.path.count("[") == 1 and change.path.endswith("]"):
        if (change.kind == "removed" and subset_new) or (change.kind == "added" and subset_old):
            return True
        name = change.path[len("packages[") : -1].lower()
        if name in _FREEZE_OMITS:
            return (change.kind == "removed" and freeze_new) or (change.kind == "added" and freeze_old)
    return False


def absent_sections(snapshot: Snapshot, *, include_telemetry: bool = False) -> frozenset[str]:
    """Sections the snapshot does not know: ``packages``, ``accelerators.amd``, ``frameworks.jax``."""
    names = (*STABLE_SECTIONS, "telemetry") if include_telemetry else STABLE_SECTIONS
    imported = snapshot.meta.origin is not None and snapshot.meta.origin.kind == "import"
    absent: set[str] = set()
    for name in names:
        section = getattr(snapshot, name)
        if section is None:
            absent.add(name)
        elif name in _PER_ITEM or (name == "frameworks" and imported):
            absent.update(
                f"{name}.{field}" for field in section.__struct_fields__ if getattr(section, field) is None
            )
    return frozenset(absent)


def not_compared(
    old: Snapshot, new: Snapshot, *, include_telemetry: bool = False, only: Collection[str] | None = None
) -> tuple[tuple[str, str], ...]:
    """Sections only one side knows, as ``(section, "old" | "new")``: the side that lacks it.

    Sections the other side does not hold either are left out (nothing to say), and with
    ``only`` so are sections outside those layers.
    """
    in_old = absent_sections(old, include_telemetry=include_telemetry)
    in_new = absent_sections(new, include_telemetry=include_telemetry)
    # Only what the other side has is worth naming: a framework neither side records is no news.
    result = [(name, "old") for name in in_old if has_section(new, name)]
    result += [(name, "new") for name in in_new if has_section(old, name)]
    if only is not None:
        result = [(name, side) for name, side in result if section_layers(name) & set(only)]
    return tuple(sorted(result, key=lambda item: section_key(item[0])))


def has_section(snapshot: Snapshot, section: str) -> bool:
    """Whether the snapshot holds ``section`` (``packages``, ``accelerators.amd``), whatever its status."""
    top, _, sub = section.partition(".")
    value = getattr(snapshot, top, None)
    if sub and value is not None:
        value = getattr(value, sub, None)
    return value is not None


def section_layers(section: str) -> set[str]:
    """The layers a section's paths can fall in (``accelerators.amd``: driver, runtime, devices)."""
    if section.startswith("accelerators"):
        return {"driver", "runtime", "devices"}
    return {layer_of(section)}


def section_key(section: str) -> tuple[int, str]:
    """Sort key for section paths: file order of the top-level section, then the name."""
    top = section.partition(".")[0]
    order = (*STABLE_SECTIONS, "telemetry")
    return (order.index(top) if top in order else len(order), section)


def is_unknown_in(path: str, sections: Collection[str]) -> bool:
    """Whether ``path`` lies in one of ``sections`` (a top-level section or a vendor under it)."""
    if not sections:
        return False
    match = _SECTION_PREFIX.match(path)
    if match is None:
        return False
    prefix = match.group()
    return prefix in sections or prefix.partition(".")[0] in sections


def compare(
    a: Flat, b: Flat, only: Collection[str] | None = None, *, unknown: Collection[str] = ()
) -> tuple[Change, ...]:
    """Changes between two flattened snapshots (see ``diff``); paths in ``unknown`` sections are skipped."""
    differing = {path for path, _ in a.values.items() ^ b.values.items()}
    if unknown:
        differing = {path for path in differing if not is_unknown_in(path, unknown)}
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
        if kind == "changed" and (is_unknown_value(schema, old) or is_unknown_value(schema, new)):
            continue  # "" -> 1.0 is an imported name @ url line meeting the installed release
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


class Rated(Protocol):
    """Anything with an impact: a ``Change``, or a fleet field."""

    @property
    def impact(self) -> str: ...


def summarize(changes: Iterable[Rated]) -> dict[str, int]:
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
