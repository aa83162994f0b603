"""Photo editing features that share primitives (pyramid, distance
transform, blur) with object removal but aren't fill engines themselves:
background blur, perspective correction.
"""

from .background_blur import background_blur
from .perspective_correction import (
    FourPointPerspectiveCorrector, compute_homography, apply_homography,
    map_image, map_back, get_horizon_points, most_distant_point_index, calculate_points_w,
)

__all__ = [
    "background_blur",
    "FourPointPerspectiveCorrector", "compute_homography", "apply_homography",
    "map_image", "map_back", "get_horizon_points", "most_distant_point_index",
    "calculate_points_w",
]
