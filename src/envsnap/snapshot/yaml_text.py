"""YAML text, both ways: deterministic YAML out, distrustful YAML in (snapshots and every report).

Writing: the given key order is file order, no anchors or aliases, multi-line text as block scalars,
LibYAML's emitter when present. Reports are their own msgspec structures, so ``dump_yaml`` converts
them first.

Reading: a file may come from another machine or another person, so it is untrusted. Files over a
size cap, binary data, YAML tags, anchors and aliases (an "alias bomb" is refused before it is
expanded), integers past 64 bits and non-finite floats are each refused with a one-line
``BadInput`` naming the file and, where known, the line.
"""

from __future__ import annotations

import contextlib
import gc
import math
import re
import threading
from collections.abc import Iterator
from typing import Any

import msgspec
import yaml

from envsnap.errors import BadInput
from envsnap.snapshot.files import MAX_FILE_BYTES

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

# Anchors (&a), aliases (*a) and tags (!t) can only appear where a node starts: at the start of a
# line (after indentation and "- ", "? " or "--- ") or after a mapping colon; inside a non-empty
# flow collection ([...] or {...}) also after "[", "{" or ",". Requirement lines such as
# ``foo>=1,!=1.3; python_version != "3.8"`` have "!" mid-scalar and don't match. These regexes may
# also match inside quoted or block text; that only sends the file through the exact event-level
# check, so they can over-match but never miss.
_NODE_START = r"(?:^[ \t]*(?:(?:-|\?|---)[ \t]+)*|:[ \t]*)"
_BLOCK_SUSPECT = re.compile(_NODE_START + r"[&*!]", re.MULTILINE)
_FLOW_OPEN = re.compile(_NODE_START + r"[\[\{](?![ \t]*[\]\}][ \t]*(?:#.*)?$)", re.MULTILINE)
_FLOW_SUSPECT = re.compile(r"[\[\{,][ \t]*[&*!]")


def _suspect(text: str) -> bool:
    """Whether the text may hold an anchor, alias or tag (then the exact check runs)."""
    if _BLOCK_SUSPECT.search(text):
        return True
    return _FLOW_OPEN.search(text) is not None and _FLOW_SUSPECT.search(text) is not None


MAX_INTEGER = 2**63 - 1
"""Largest integer a snapshot may hold (int64, what msgspec and every consumer of the JSON handle)."""


class _StrictLoader(_Loader):  # type: ignore[misc, valid-type]
    """LibYAML's parser with two refusals on top: duplicate mapping keys and out-of-range numbers.

    YAML lets the last of two equal keys win, so a reviewer reading ``version: 8.5.1`` would
    approve a file whose loader sees the ``version: '7.0'`` further down. A ``1e400``-sized integer
    or an infinite float would crash a renderer long after loading. Only the constructor is
    Python; the C parser (the slow part otherwise) stays.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = (key_node.tag, key_node.value)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key_node.value[:80]!r}", key_node.start_mark
                    )
                seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        value: int = super().construct_yaml_int(node)
        if abs(value) > MAX_INTEGER:
            raise yaml.constructor.ConstructorError(
                None, None, f"number out of range ({len(node.value)} digits)", node.start_mark
            )
        return value

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        value: float = super().construct_yaml_float(node)
        if not math.isfinite(value):
            raise yaml.constructor.ConstructorError(
                None, None, f"number out of range ({node.value[:20]!r})", node.start_mark
            )
        return value


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _StrictLoader.construct_yaml_float)


class _MetricsLoader(_StrictLoader):
    """The strict loader for numeric reports, where ``.inf`` is a measurement, not an attack.

    A verify report's SQNR of two identical tensors is infinite, and so is an error ratio against
    a reference whose own noise is zero; everything else stays refused (keys, integers, tags).
    """


_MetricsLoader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_yaml_float)


class _Dumper(_BaseDumper):  # type: ignore[misc, valid-type]
    """Safe dumper that never writes anchors and writes multi-line text as block scalars."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_Dumper.add_representer(str, _represent_str)


class QuotedText(str):
    """Text always written as a double-quoted YAML scalar (escapes included), never a bare word.

    For what another machine said (a node's last stderr line in ``fleet.yaml``): quoted, a
    ``$(touch x)`` reads as the data it is to anyone (or anything) that reads the file as a shell.
    """


def _represent_quoted(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style='"')


_Dumper.add_representer(QuotedText, _represent_quoted)


def to_yaml(data: Any) -> str:
    """Deterministic YAML for plain data: given key order, no anchors, block scalars, LibYAML."""
    text: str = yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=4096,
    )
    return text


def parse_yaml(text: str, name: str, cap: int = MAX_FILE_BYTES, *, infinite_floats: bool = False) -> Any:
    """Parse untrusted YAML into plain data: size-capped, and no anchors, aliases or tags.

    ``infinite_floats`` lets ``.inf``/``.nan`` through, for reports of measurements only.

    Raises:
        BadInput: too large, not YAML, or using anchors, aliases or tags (one line, with the line).
    """
    if len(text) > cap:
        raise BadInput(f"{name}: text is larger than {cap // (1024 * 1024)} MB; refusing to read it")
    if _suspect(text):
        _refuse_anchors_and_tags(text, name)
    try:
        with paused_gc():
            return yaml.load(text, Loader=_MetricsLoader if infinite_floats else _StrictLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f":{mark.line + 1}" if mark is not None else ""
        raise BadInput(f"{name}{where}: not valid YAML: {err.problem or err.context}") from err
    except yaml.YAMLError as err:
        raise BadInput(f"{name}: not valid YAML: {err}") from err
    except RecursionError as err:
        raise BadInput(f"{name}: YAML nested too deeply") from err


def _refuse_anchors_and_tags(text: str, name: str) -> None:
    """Walk the YAML event stream (nothing is constructed) and refuse aliases, anchors and tags."""
    try:
        for event in yaml.parse(text, Loader=_Loader):
            line = event.start_mark.line + 1 if event.start_mark is not None else 0
            if isinstance(event, yaml.AliasEvent):
                raise BadInput(f"{name}:{line}: YAML aliases are not allowed in snapshots (*{event.anchor})")
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                raise BadInput(f"{name}:{line}: YAML anchors are not allowed in snapshots (&{anchor})")
            tag = getattr(event, "tag", None)
            implicit = getattr(event, "implicit", True)
            if tag is not None and not (implicit is True or (isinstance(implicit, tuple) and any(implicit))):
                raise BadInput(f"{name}:{line}: YAML tags are not allowed in snapshots ({tag})")
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f":{mark.line + 1}" if mark is not None else ""
        raise BadInput(f"{name}{where}: not valid YAML: {err.problem or err.context}") from err
    except yaml.YAMLError as err:
        raise BadInput(f"{name}: not valid YAML: {err}") from err


_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Turn Python's cyclic garbage collector off while a big document is built, then restore it.

    PyYAML and msgspec allocate millions of small containers and no cycles; with the collector on,
    each generation-2 pass walks everything built so far, which made loading superlinear (10k
    packages: 4.5 s with it on, 1.95 s off). Nested and concurrent pauses (the TUI loads in
    threads) share one counter, so the collector is restored only when the last one ends, and only
    if it was on before the first began.
    """
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


def dump_yaml(report: msgspec.Struct, header: str) -> str:
    """Serialize a report struct to YAML, ``None`` fields left out, with a ``# header`` comment line."""
    return f"# {header}\n{to_yaml(msgspec.to_builtins(report))}"


def load_yaml(text: str, kind: type[msgspec.Struct], name: str) -> Any:
    """Parse report YAML back into ``kind``.

    Raises:
        BadInput: not YAML, or not a report of that kind (one line naming ``name``).
    """
    data = parse_yaml(text, name)
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as err:
        raise BadInput(f"{name}: not a valid {kind.__name__}: {err}") from None
