"""Classic computer vision building blocks, exposed as standalone, reusable
primitives rather than bundled inside whichever feature happens to use them
first. ``fillengines/self_similar_shift.py`` (tier 2) imports :mod:`orb`
rather than keeping a duplicate copy.
"""

from .orb import Keypoint, fast_corners, brief_descriptors, hamming
from .harris import (
    harris_response, shi_tomasi_response, harris_corners, good_features_to_track, structure_tensor,
)
from .canny import canny, sobel_gradients
from .distance_transform import distance_transform
from .box_filter import box_filter
from .symmetric_convolution import separable_convolve, gaussian_kernel_1d, gaussian_blur_sigma
from .nearest_opaque import fill_nearest_opaque
from .max_finder import local_max_filter, non_max_suppression
from .frequency_separation import FrequencyBands, separate, recombine, smooth_low_band

__all__ = [
    "Keypoint", "fast_corners", "brief_descriptors", "hamming",
    "harris_response", "shi_tomasi_response", "harris_corners", "good_features_to_track",
    "structure_tensor",
    "canny", "sobel_gradients",
    "distance_transform",
    "box_filter",
    "separable_convolve", "gaussian_kernel_1d", "gaussian_blur_sigma",
    "fill_nearest_opaque",
    "local_max_filter", "non_max_suppression",
    "FrequencyBands", "separate", "recombine", "smooth_low_band",
]
