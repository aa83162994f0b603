from .kspace_filter import KSpaceFilter, KSpaceKernel, P3MKSpaceFilter
from .kvectors import (
    compute_batched_kvectors,
    generate_kvectors_for_ewald,
    generate_kvectors_for_mesh,
    get_ns_mesh,
)
from .math import exp1, gamma, gammaincc_over_powerlaw
from .mesh_interpolator import MeshInterpolator
from .splines import (
    CubicSpline,
    CubicSplineReciprocal,
    compute_second_derivatives,
    compute_spline_ft,
)

__all__ = [
    "CubicSpline",
    "CubicSplineReciprocal",
    "compute_spline_ft",
    "compute_second_derivatives",
    "KSpaceFilter",
    "KSpaceKernel",
    "MeshInterpolator",
    "P3MKSpaceFilter",
    "all_neighbor_indices",
    "distances",
    "generate_kvectors_for_ewald",
    "generate_kvectors_for_mesh",
    "compute_batched_kvectors",
    "get_ns_mesh",
    "gamma",
    "gammaincc_over_powerlaw",
    "exp1",
]
