"""Utility functions for phase unwrapping."""

from rapidphase.utils.phase_ops import (
    wrap,
    gradient,
    laplacian,
    rewrap,
)
from rapidphase.utils.quality import (
    compute_quality_map,
    coherence_to_weights,
)

__all__ = [
    "wrap",
    "gradient",
    "laplacian",
    "rewrap",
    "compute_quality_map",
    "coherence_to_weights",
]
