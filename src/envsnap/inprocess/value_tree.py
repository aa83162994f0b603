"""A call's arguments as JSON (the bundle's ``top_calls``) and back, tensors by key, never pickle.

Tensors become ``{"tensor": key}`` with the same keys the capture uses (``<input>#0/args/0``), so
they are stored once, in inputs.safetensors. Lists, tuples, dicts with string keys and plain
scalars survive the trip; a dataclass instance is stored by field (``{"fields": ["TypeName", [[name,
node], ...]]}``) and comes back on the verify side as a ``types.SimpleNamespace`` with the same
attributes (no class is ever imported by name from a bundle); anything else is noted as
``{"opaque": "TypeName"}`` and replays as None. A call with an opaque argument can't be replayed
faithfully: the record doesn't replay it and says so (``opaque_types``).
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from typing import Any

from envsnap.errors import BadInput
from envsnap.snapshot.redact import REDACTED, is_secret_name, redact_text

MAX_DEPTH = 32


def encode(value: Any, path: str, tensor_type: type, name: str | None = None) -> dict[str, Any]:
    """Describe ``value``, whose tensors are named ``path`` + their position.

    A bundle travels to other machines, so text is stored redacted: a token passed as an argument
    (``model(x, note="hf_...")``), or any text under a secret-looking name (``api_key=...``, a dict
    key ``"password"``), is written as ``<redacted>``; verify replays that text.
    """
    if isinstance(value, tensor_type):
        return {"tensor": path}
    if isinstance(value, (list, tuple)):
        kind = "list" if isinstance(value, list) else "tuple"
        return {kind: [encode(item, f"{path}/{i}", tensor_type) for i, item in enumerate(value)]}
    if isinstance(value, Mapping):
        return {
            "dict": [[str(k), encode(item, f"{path}/{k}", tensor_type, str(k))] for k, item in value.items()]
        }
    if value is None:
        return {"none": True}
    if isinstance(value, str):
        secret = name is not None and is_secret_name(name) and bool(value)
        return {"value": REDACTED if secret else redact_text(value)}
    if isinstance(value, (bool, int, float)):
        return {"value": value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [
            [f.name, encode(getattr(value, f.name, None), f"{path}/{f.name}", tensor_type, f.name)]
            for f in dataclasses.fields(value)
        ]
        return {"fields": [type(value).__name__, fields]}
    return {"opaque": type(value).__name__}


def opaque_types(node: Any, depth: int = 0) -> list[str]:
    """Type names of the values in a description that could not be stored."""
    if depth > MAX_DEPTH or not isinstance(node, dict) or len(node) != 1:
        return []
    ((kind, body),) = node.items()
    if kind == "opaque":
        return [str(body)]
    if kind in ("list", "tuple") and isinstance(body, list):
        return [t for item in body for t in opaque_types(item, depth + 1)]
    if kind == "dict" and isinstance(body, list):
        return [
            t
            for pair in body
            if isinstance(pair, list) and len(pair) == 2
            for t in opaque_types(pair[1], depth + 1)
        ]
    if kind == "fields" and isinstance(body, list) and len(body) == 2 and isinstance(body[1], list):
        return [
            t
            for pair in body[1]
            if isinstance(pair, list) and len(pair) == 2
            for t in opaque_types(pair[1], depth + 1)
        ]
    return []


def decode(node: Any, tensors: Mapping[str, Any], name: str, depth: int = 0) -> Any:
    """Rebuild a value from its description; tensors from ``tensors``.

    Raises:
        BadInput: a malformed description, too deep, or a tensor key that isn't stored.
    """
    if depth > MAX_DEPTH or not isinstance(node, dict) or len(node) != 1:
        raise BadInput(f"{name}: malformed value description in the manifest")
    ((kind, body),) = node.items()
    if kind == "tensor":
        if not isinstance(body, str) or body not in tensors:
            raise BadInput(f"{name}: input tensor {str(body)[:80]!r} is not in the bundle")
        return tensors[body]
    if kind in ("list", "tuple") and isinstance(body, list):
        items = [decode(item, tensors, name, depth + 1) for item in body]
        return items if kind == "list" else tuple(items)
    if kind == "dict" and isinstance(body, list):
        pairs = {}
        for pair in body:
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                raise BadInput(f"{name}: malformed dict in a value description")
            pairs[pair[0]] = decode(pair[1], tensors, name, depth + 1)
        return pairs
    if kind == "value" and isinstance(body, (bool, int, float, str)):
        return body
    if kind == "fields" and isinstance(body, list) and len(body) == 2 and isinstance(body[1], list):
        attributes = {}
        for pair in body[1]:
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                raise BadInput(f"{name}: malformed dataclass in a value description")
            if not pair[0].isidentifier() or pair[0].startswith("__"):
                raise BadInput(f"{name}: dataclass field {pair[0][:40]!r} is not a name")
            attributes[pair[0]] = decode(pair[1], tensors, name, depth + 1)
        return types.SimpleNamespace(**attributes)
    if kind in ("none", "opaque"):
        return None
    raise BadInput(f"{name}: unknown value kind {kind[:40]!r} in the manifest")
