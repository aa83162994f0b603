__all__ = [
    "circular_gaussian2d",
    "LaplacianPyramid",
    "rectangular_to_polar_dict",
    "polar_to_rectangular_dict",
    "local_gain_control",
    "local_gain_control_dict",
    "local_gain_release",
    "local_gain_release_dict",
    "SteerablePyramidFreq",
    "correlate_downsample",
    "upsample_convolve",
    "blur_downsample",
    "upsample_blur",
    "same_padding",
    "rescale",
    "rectangular_to_polar",
    "polar_to_rectangular",
    "add_noise",
    "modulate_phase",
    "autocorrelation",
    "center_crop",
    "expand",
    "shrink",
    "variance",
    "skew",
    "kurtosis",
    "normalized_laplacian_pyramid",
    "ssim_map",
]

from .convolutions import (
    blur_downsample,
    correlate_downsample,
    same_padding,
    upsample_blur,
    upsample_convolve,
)
from .filters import circular_gaussian2d
from .laplacian_pyramid import LaplacianPyramid
from .metric import normalized_laplacian_pyramid, ssim_map
from .non_linearities import (
    local_gain_control,
    local_gain_control_dict,
    local_gain_release,
    local_gain_release_dict,
    polar_to_rectangular_dict,
    rectangular_to_polar_dict,
)
from .signal import (
    add_noise,
    autocorrelation,
    center_crop,
    expand,
    modulate_phase,
    polar_to_rectangular,
    rectangular_to_polar,
    rescale,
    shrink,
)
from .stats import kurtosis, skew, variance
from .steerable_pyramid_freq import SteerablePyramidFreq
