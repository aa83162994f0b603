"""A call's arguments as JSON (the bundle's ``top_calls``) and back, tensors by key, never pickle.

Tensors become ``{"tensor": key}`` with the same keys the capture uses (``<input>#0/args/0``), so
they are stored once, in inputs.safetensors. Lists, tuples, dicts with string keys and plain
scalars survive the trip; anything else is noted as ``{"opaque": "TypeName"}`` and replays as None
(the record's notes say so).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from envsnap.errors import BadInput

MAX_DEPTH = 32


def encode(value: Any, path: str, tensor_type: type) -> dict[str, Any]:
    """Describe ``value``, whose tensors are named ``path`` + their position."""
    if isinstance(value, tensor_type):
        return {"tensor": path}
    if isinstance(value, (list, tuple)):
        kind = "list" if isinstance(value, list) else "tuple"
        return {kind: [encode(item, f"{path}/{i}", tensor_type) for i, item in enumerate(value)]}
    if isinstance(value, Mapping):
        return {"dict": [[str(k), encode(item, f"{path}/{k}", tensor_type)] for k, item in value.items()]}
    if value is None:
        return {"none": True}
    if isinstance(value, (bool, int, float, str)):
        return {"value": value}
    return {"opaque": type(value).__name__}


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
    if kind in ("none", "opaque"):
        return None
    raise BadInput(f"{name}: unknown value kind {kind[:40]!r} in the manifest")
