"""Materialize immutable model data for an array backend.

Reusable backend-specific data lives on materialized state objects. Operation
execution is lowered by ``ArrayRuntime`` instead.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from body_models._common import kinematics

if TYPE_CHECKING:
    from body_models._runtime import KernelBackend

_JAX_DATACLASSES: set[type] = set()
_STATIC_LEAF_TYPES = (type(None), bool, int, float, str, bytes, np.generic, kinematics.KinematicTree)


def numpy_state(value: Any) -> Any:
    """Materialize model data for NumPy."""
    from body_models._common import sparse

    if isinstance(value, _STATIC_LEAF_TYPES):
        return value
    if isinstance(value, sparse.SparseMatrix):
        from body_models._common import sparse_numpy

        return sparse_numpy.SparseLinear(value)

    if isinstance(value, np.ndarray):
        return value.copy()
    if is_dataclass(value):
        cls = type(value)
        return cls(**{field.name: numpy_state(getattr(value, field.name)) for field in fields(value)})
    if isinstance(value, list):
        return [numpy_state(item) for item in value]
    if isinstance(value, tuple):
        return tuple(numpy_state(item) for item in value)
    if isinstance(value, dict):
        return {key: numpy_state(item) for key, item in value.items()}
    return _static_leaf(value)


def torch_state(value: Any, *, kernel_backend: KernelBackend = "torch") -> Any:
    """Recursively register model arrays as PyTorch buffers."""
    import torch
    from torch import nn

    from body_models._common import skinning, sparse
    from body_models._torch_state import StateMapping, StateSequence

    if isinstance(value, _STATIC_LEAF_TYPES):
        return value
    if isinstance(value, skinning.CompactSkinning) and kernel_backend == "warp":
        try:
            from body_models._common import warp
        except ModuleNotFoundError as exc:
            raise ModuleNotFoundError("Install body-models[warp] to use kernel_backend='warp'.") from exc
        return warp.prepare_compact_skinning(torch_state(value))

    if isinstance(value, sparse.SparseMatrix):
        from body_models._common import sparse_torch

        return sparse_torch.SparseLinear(value)

    if is_dataclass(value):
        module = nn.Module()
        for field in fields(value):
            converted = torch_state(
                getattr(value, field.name),
                kernel_backend=kernel_backend,
            )
            setattr(module, field.name, converted)
        return module

    if isinstance(value, dict):
        converted = {key: torch_state(item, kernel_backend=kernel_backend) for key, item in value.items()}
        if any(isinstance(item, torch.Tensor | nn.Module) for item in converted.values()):
            return StateMapping(converted)
        return converted

    if isinstance(value, list | tuple):
        converted = [torch_state(item, kernel_backend=kernel_backend) for item in value]
        if any(isinstance(item, torch.Tensor | nn.Module) for item in converted):
            return StateSequence(converted)
        return type(value)(converted)

    if isinstance(value, np.ndarray | torch.Tensor):
        tensor = torch.tensor(value) if isinstance(value, np.ndarray) else value
        return nn.Buffer(tensor, persistent=True)

    return _static_leaf(value)


def jax_state(value: Any) -> Any:
    """Convert model arrays to JAX arrays while preserving dataclass types."""
    import jax
    import jax.numpy as jnp

    from body_models._common import sparse

    if isinstance(value, _STATIC_LEAF_TYPES):
        return value
    if isinstance(value, sparse.SparseMatrix):
        from body_models._common import sparse_jax

        materialized = sparse_jax.SparseLinear.from_matrix(value)
        _register_jax_dataclass(type(materialized), jax)
        return materialized

    if is_dataclass(value):
        cls = type(value)
        _register_jax_dataclass(cls, jax)
        return cls(**{field.name: jax_state(getattr(value, field.name)) for field in fields(value)})

    if isinstance(value, list):
        return [jax_state(item) for item in value]
    if isinstance(value, tuple):
        return tuple(jax_state(item) for item in value)
    if isinstance(value, dict):
        return {key: jax_state(item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        return jnp.asarray(value)
    if isinstance(value, jax.Array):
        return value
    return _static_leaf(value)


def _static_leaf(value: Any) -> Any:
    value_type = type(value)
    raise TypeError(f"Unsupported model state leaf: {value_type.__module__}.{value_type.__qualname__}")


def register_jax_state(value: Any) -> None:
    """Restore pytree registrations for already-materialized JAX state."""
    import jax

    _register_jax_state(value, jax)


def _register_jax_state(value: Any, jax: Any) -> None:
    if isinstance(value, _STATIC_LEAF_TYPES):
        return
    if is_dataclass(value):
        _register_jax_dataclass(type(value), jax)
        for field in fields(value):
            _register_jax_state(getattr(value, field.name), jax)
    elif isinstance(value, list | tuple):
        for item in value:
            _register_jax_state(item, jax)
    elif isinstance(value, dict):
        for item in value.values():
            _register_jax_state(item, jax)


def _register_jax_dataclass(cls: type, jax: Any) -> None:
    if cls in _JAX_DATACLASSES:
        return

    field_names = tuple(field.name for field in fields(cls))

    def flatten(obj):
        values = tuple(getattr(obj, name) for name in field_names)
        leaves, tree = jax.tree_util.tree_flatten(values)
        static = tuple((index, leaf) for index, leaf in enumerate(leaves) if isinstance(leaf, _STATIC_LEAF_TYPES))
        children = tuple(leaf for leaf in leaves if not isinstance(leaf, _STATIC_LEAF_TYPES))
        return children, (tree, static)

    def unflatten(aux_data, children):
        tree, static = aux_data
        leaves = list(children)
        for index, value in static:
            leaves.insert(index, value)
        values = jax.tree_util.tree_unflatten(tree, leaves)
        return cls(**dict(zip(field_names, values, strict=True)))

    jax.tree_util.register_pytree_node(cls, flatten, unflatten)
    _JAX_DATACLASSES.add(cls)


__all__ = ["jax_state", "numpy_state", "register_jax_state", "torch_state"]
