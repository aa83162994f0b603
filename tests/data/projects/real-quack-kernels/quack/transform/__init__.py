# Copyright (c) 2026, QuACK team.
"""Transform kernels."""

from quack.transform.hadamard import (
    hadamard_transform,
    hadamard_transform_fwd,
    hadamard_transform_ref,
)

__all__ = [
    "hadamard_transform",
    "hadamard_transform_fwd",
    "hadamard_transform_ref",
]
