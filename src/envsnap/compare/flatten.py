"""Flatten a snapshot into ``{path: value}`` once, so diffs and fleet views compare plain dicts.

Two snapshots (or three hundred) are compared by flattening each one a single time and comparing
the dicts, never by walking pairs of trees: set operations on ``dict.items()`` run in C and keep
the fleet view linear in the number of snapshots.

Paths are dotted field names, with list items addressed by a *match key* in brackets:
``packages[torch]``, ``accelerators.nvidia.devices[NVIDIA H100 80GB HBM3#0].compute_capability``,
``environment.variables.CUDA_VISIBLE_DEVICES``. The match keys are what makes a diff across hosts
meaningful:

- packages (and companions, extension distributions, shadowed copies) by PEP 503-normalized name;
- devices by model name and position among devices of the same model (``#0``, ``#1``...), never by
  UUID or serial, which differ on every machine;
- loaded libraries by library name, toolkit installations by path, MIG instances by profile.

Some paths are *nodes*: a section (value ``ok`` or ``skipped: <reason>``) or a list item (value
its version or name). Every path records its nearest node ancestor, so a diff can report "torch
removed" once instead of once per field, and "NVML became unavailable" instead of a vanished
device list. Host identity is left out exactly as the fingerprint leaves it out (hostname, serials,
UUIDs, usernames in paths), so equal fingerprints mean an empty diff. ``meta``, ``fingerprint`` and
``findings`` are never compared; ``telemetry`` only on request.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from packaging.utils import canonicalize_name

from envsnap.snapshot.model import STABLE_SECTIONS, Package, Snapshot
from envsnap.snapshot.redact import mask_user_paths

IDENTITY_FIELDS = frozenset({"hostname", "serial", "uuid"})
"""Fields that differ on every machine; the fingerprint leaves them out too."""

_SECTION_FIELDS = frozenset({"status", "reason"})
BOOKKEEPING_PATHS = frozenset({"extensions.scanned_files"})
"""Counts the probes keep about their own work, not facts of the stack (the fingerprint skips them too)."""
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*\Z")


@dataclass
class Flat:
    """One snapshot as flat dicts; ``values`` is what gets compared."""

    values: dict[str, Any] = field(default_factory=dict)
    """Path -> a hashable value (scalars, tuples of scalars)."""
    schema: dict[str, str] = field(default_factory=dict)
    """Path -> the same path without list keys (``packages.source``): what the impact rules key on."""
    parent: dict[str, str | None] = field(default_factory=dict)
    """Path -> its nearest node ancestor, or None at the top."""
    nodes: set[str] = field(default_factory=set)
    """Paths that stand for a whole section or list item."""
    sections: set[str] = field(default_factory=set)
    """Node paths that are probed sections (their value is the status)."""


def _package_key(item: dict[str, Any]) -> str:
    return canonicalize_name(str(item.get("name", "")))


def _model_key(item: dict[str, Any]) -> str:
    return str(item.get("name") or "unknown")


def _telemetry_key(item: dict[str, Any]) -> str:
    return f"{item.get('vendor', '?')}:{item.get('name') or 'unknown'}"


# List path (schema form) -> (match key of an item, node value of an item).
_KEYED_LISTS: dict[str, tuple[Callable[[dict[str, Any]], str], str | None]] = {
    "packages": (_package_key, "version"),
    "python.shadowed": (_package_key, "version"),
    "frameworks.companions": (_package_key, "version"),
    "extensions.distributions": (_package_key, "version"),
    "accelerators.nvidia.devices": (_model_key, "name"),
    "accelerators.amd.devices": (_model_key, "name"),
    "accelerators.intel.devices": (_model_key, "name"),
    "accelerators.nvidia.devices.mig_instances": (lambda item: str(item.get("profile") or "mig"), "profile"),
    "frameworks.torch.devices": (_model_key, "name"),
    "frameworks.torch.loaded_libraries": (lambda item: str(item.get("name", "")), "path"),
    "toolkits.cuda.installations": (lambda item: mask_user_paths(str(item.get("path", ""))), "version"),
    "toolkits.rocm.installations": (lambda item: mask_user_paths(str(item.get("path", ""))), "version"),
    "toolkits.hip.installations": (lambda item: mask_user_paths(str(item.get("path", ""))), "version"),
    "telemetry.devices": (_telemetry_key, "name"),
    "telemetry.devices.processes": (lambda item: str(item.get("pid", "?")), "name"),
}
# Lists whose items are told apart by position among equal keys (identical GPUs), so the key
# always carries "#n"; elsewhere a suffix is added only when a key repeats.
_POSITIONAL = frozenset(
    {
        "accelerators.nvidia.devices",
        "accelerators.amd.devices",
        "accelerators.intel.devices",
        "frameworks.torch.devices",
        "telemetry.devices",
        "accelerators.nvidia.devices.mig_instances",
    }
)


def source_text(source: dict[str, Any]) -> str:
    """A PEP 610 source as one readable value: ``index``, ``vcs git+https://...@<commit>``, ..."""
    kind = str(source.get("kind", "index"))
    url = source.get("url")
    if kind == "vcs":
        vcs = source.get("vcs") or "vcs"
        commit = source.get("commit_id") or source.get("requested_revision")
        base = str(url)
        # PEP 610 stores the bare URL; a pip freeze line carries "git+" and "@<commit>" in it.
        base = base.removeprefix(f"{vcs}+")
        if commit and base.endswith(f"@{commit}"):
            base = base[: -len(commit) - 1]
        return f"vcs {vcs}+{base}" + (f"@{commit}" if commit else "")
    return kind if url is None else f"{kind} {url}"


# Small structures shown as one value ("vcs git+https://...@abc123"), not field by field.
_ATOMIC: dict[str, Callable[[dict[str, Any]], str]] = {"packages.source": source_text}


def _clean(value: Any) -> Any:
    """Mask usernames in paths; make lists (and any nested map) hashable, for set comparisons."""
    if isinstance(value, str):
        if "/home/" in value or "/Users/" in value or ":\\Users\\" in value:
            return mask_user_paths(value)
        return value
    if isinstance(value, (list, tuple)):
        return tuple(_clean(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _clean(v)) for k, v in value.items()))
    return value


def _key_part(key: str) -> str:
    return f".{key}" if _PLAIN_KEY.match(key) else f"[{key}]"


class _Flattener:
    """Walks plain data (``msgspec.to_builtins`` of a section) into a Flat."""

    def __init__(self, flat: Flat) -> None:
        self.flat = flat

    def leaf(self, path: str, schema: str, parent: str | None, value: Any) -> None:
        flat = self.flat
        flat.values[path] = _clean(value)
        flat.schema[path] = schema
        flat.parent[path] = parent

    def node(self, path: str, schema: str, parent: str | None, value: Any, *, section: bool = False) -> None:
        self.leaf(path, schema, parent, value)
        self.flat.nodes.add(path)
        if section:
            self.flat.sections.add(path)

    def mapping(self, data: dict[str, Any], path: str, schema: str, parent: str | None) -> None:
        """A model structure: a section becomes a node; its fields become children."""
        if "status" in data:
            status = data["status"]
            reason = data.get("reason")
            summary = status if status == "ok" or not reason else f"{status}: {reason}"
            self.node(path, schema, parent, summary, section=True)
            parent = path
        for key, value in data.items():
            if key in IDENTITY_FIELDS or (key in _SECTION_FIELDS and parent == path):
                continue
            if f"{schema}.{key}" in BOOKKEEPING_PATHS:
                continue
            self.value(value, f"{path}.{key}", f"{schema}.{key}", parent)

    def free_map(self, data: dict[str, Any], path: str, schema: str, parent: str | None) -> None:
        """A map with foreign keys (environment variables, build config): one leaf per key."""
        for key, value in data.items():
            self.leaf(path + _key_part(str(key)), schema, parent, value)

    def value(self, value: Any, path: str, schema: str, parent: str | None) -> None:
        """Any value: a structure, a free-form map, a keyed list, or a leaf."""
        if isinstance(value, dict):
            atomic = _ATOMIC.get(schema)
            if atomic is not None:
                self.leaf(path, schema, parent, atomic(value))
            elif schema.endswith((".variables", ".config", ".build_info")):
                self.free_map(value, path, schema, parent)
            else:
                self.mapping(value, path, schema, parent)
        elif isinstance(value, (list, tuple)) and (
            schema in _KEYED_LISTS or (value and isinstance(value[0], dict))
        ):
            self.items(value, path, schema, parent)  # an empty device list adds nothing: no items
        else:
            self.leaf(path, schema, parent, value)

    def items(self, items: Sequence[dict[str, Any]], path: str, schema: str, parent: str | None) -> None:
        """A list of structures: each item a node under its match key."""
        key_of, node_field = _KEYED_LISTS.get(schema, (lambda item: "", None))
        positional = schema in _POSITIONAL or schema not in _KEYED_LISTS
        seen: dict[str, int] = {}
        for item in items:
            key = key_of(item)
            count = seen.get(key, 0)
            seen[key] = count + 1
            if positional:
                key = f"{key}#{count}" if key else f"#{count}"
            elif count:
                key = f"{key}#{count}"
            item_path = f"{path}[{key}]"
            summary = item.get(node_field) if node_field else key
            self.node(item_path, schema, parent, summary)
            for field_name, field_value in item.items():
                if field_name in (node_field, "name") or field_name in IDENTITY_FIELDS:
                    continue
                self.value(field_value, f"{item_path}.{field_name}", f"{schema}.{field_name}", item_path)


_PACKAGE_LEAVES = ("installer", "requires", "top_level")
_OTHER_PACKAGE_FIELDS = tuple(
    name for name in Package.__struct_fields__ if name not in (*_PACKAGE_LEAVES, "name", "version", "source")
)


def _packages(walker: _Flattener, packages: Sequence[Package]) -> None:
    """The packages section, read straight from the structs: it is most of a big snapshot."""
    flat = walker.flat
    values, schema, parent, nodes = flat.values, flat.schema, flat.parent, flat.nodes
    seen: set[str] = set()
    for package in packages:
        key: str = canonicalize_name(package.name)
        if key in seen:  # the same distribution twice: keep both, the second one numbered
            count = 1
            while f"{key}#{count}" in seen:
                count += 1
            key = f"{key}#{count}"
        seen.add(key)
        path = f"packages[{key}]"
        values[path], schema[path], parent[path] = package.version, "packages", None
        nodes.add(path)
        for name in _PACKAGE_LEAVES:
            value = getattr(package, name)
            if value is not None:
                leaf = f"{path}.{name}"
                values[leaf], schema[leaf], parent[leaf] = _clean(value), f"packages.{name}", path
        if package.source is not None:
            leaf = f"{path}.source"
            values[leaf] = _clean(source_text(msgspec.structs.asdict(package.source)))
            schema[leaf], parent[leaf] = "packages.source", path
        for name in _OTHER_PACKAGE_FIELDS:  # fields added to the model later
            value = getattr(package, name)
            if value is not None:
                walker.value(msgspec.to_builtins(value), f"{path}.{name}", f"packages.{name}", path)


def flatten(snapshot: Snapshot, *, include_telemetry: bool = False) -> Flat:
    """Flatten the stable sections (and telemetry when asked) of one snapshot."""
    flat = Flat()
    walker = _Flattener(flat)
    names = (*STABLE_SECTIONS, "telemetry") if include_telemetry else STABLE_SECTIONS
    for name in names:
        section = getattr(snapshot, name)
        if section is None:
            continue
        if name == "packages":
            _packages(walker, section)
            continue
        data = msgspec.to_builtins(section)
        if name == "telemetry":
            walker.mapping({k: v for k, v in data.items() if k != "captured_at"}, name, name, None)
        else:
            walker.value(data, name, name, None)
    return flat
