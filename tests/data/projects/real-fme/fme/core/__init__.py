from . import models as _  # to trigger registrations
from .atmosphere_data import AtmosphereData
from .device import get_device, using_gpu
from .gridded_ops import GriddedOperations
from .metrics import (
    root_mean_squared_error,
    spherical_area_weights,
    weighted_mean,
    weighted_mean_bias,
    weighted_nanmean,
    weighted_sum,
)
from .normalizer import StandardNormalizer, get_normalizer
from .packer import Packer
from .rand import set_seed
from .registry import Registry

del _

__all__ = [
    "spherical_area_weights",
    "weighted_mean",
    "weighted_mean_bias",
    "weighted_nanmean",
    "weighted_sum",
    "root_mean_squared_error",
    "get_device",
    "using_gpu",
    "StandardNormalizer",
    "get_normalizer",
    "Packer",
    "AtmosphereData",
    "GriddedOperations",
    "Registry",
    "set_seed",
]
