"""Point cloud ops for PyTorch on Apple Silicon (MPS)."""

from . import flat, reference
from .chamfer import chamfer_distance
from .ops import ball_query, furthest_point_sample, knn
from .pointnet2 import three_interpolate, three_nn
from .spatial import SpatialIndex

__all__ = [
    "ball_query", "chamfer_distance", "flat", "furthest_point_sample", "knn", "reference",
    "three_interpolate", "three_nn", "SpatialIndex",
]
__version__ = "1.0.0"
