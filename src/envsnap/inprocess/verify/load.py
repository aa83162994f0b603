"""Load a checked bundle's tensors (safetensors, from bytes already validated) for verify."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from envsnap.inprocess.bundle.check import CheckedBundle
from envsnap.inprocess.bundle.model import ACTIVATIONS, GOLDEN, INPUTS
from envsnap.inprocess.value_tree import decode


@dataclass
class Loaded:
    inputs: dict[str, torch.Tensor] = field(default_factory=dict)
    """Recorded inputs on the CPU (what the fed inputs are checked against)."""
    activations: dict[str, torch.Tensor] = field(default_factory=dict)
    golden: dict[str, torch.Tensor] = field(default_factory=dict)
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)
    """Top-level calls with inputs on the target device."""
    moved: dict[str, torch.Tensor] = field(default_factory=dict)
    """The recorded inputs on the target device, by key."""


def _tensors(bundle: CheckedBundle, name: str) -> dict[str, torch.Tensor]:
    data = bundle.members.get(name)
    if data is None:
        return {}
    from safetensors.torch import load

    tensors: dict[str, torch.Tensor] = load(data)
    return tensors


def target_device(device: str | None, model: Any) -> torch.device:
    if device is not None:
        return torch.device(device)
    if model is not None:
        from envsnap.inprocess.record.measure import model_device

        return torch.device(model_device(model, "cpu"))
    return torch.device("cpu")


def load_tensors(bundle: CheckedBundle, device: str | None, model: Any) -> Loaded:
    loaded = Loaded(
        inputs=_tensors(bundle, INPUTS),
        activations=_tensors(bundle, ACTIVATIONS),
        golden=_tensors(bundle, GOLDEN),
    )
    where = target_device(device, model)
    moved = {key: tensor.to(where) for key, tensor in loaded.inputs.items()}
    loaded.moved = moved
    loaded.calls = _calls(bundle, moved)
    return loaded


def recorded_calls(bundle: CheckedBundle) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """The top-level calls with their inputs read afresh, on the CPU: what the model was fed, even
    where the block wrote into ``v.inputs`` since (a model that adds to its input in place)."""
    return _calls(bundle, _tensors(bundle, INPUTS))


def _calls(
    bundle: CheckedBundle, tensors: dict[str, torch.Tensor]
) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    calls = []
    for top in bundle.manifest.top_calls:
        args = tuple(decode(node, tensors, bundle.path) for node in top.args)
        kwargs = {key: decode(node, tensors, bundle.path) for key, node in top.kwargs}
        calls.append((args, kwargs))
    return calls
