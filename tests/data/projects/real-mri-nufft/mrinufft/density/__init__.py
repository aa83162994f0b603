"""Density compensation methods.

.. autoregistry:: density
"""

from .geometry_based import voronoi, voronoi_unique, cell_count
from .nufft_based import pipe
from .utils import get_density

__all__ = [
    "register_density",
    "voronoi",
    "voronoi_unique",
    "pipe",
    "cell_count",
    "get_density",
]
