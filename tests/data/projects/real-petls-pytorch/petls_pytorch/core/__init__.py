"""Core PETLS data structures and algorithms."""

from petls_pytorch.core.filtered_boundary import FilteredBoundaryMatrix
from petls_pytorch.core.complex import Complex, LaplacianSizeError
from petls_pytorch.core.profile import CudaTimer, Profile, Timer

__all__ = [
    "FilteredBoundaryMatrix",
    "Complex",
    "LaplacianSizeError",
    "Profile",
    "Timer",
    "CudaTimer",
]
