"""Normalization types."""

__all__ = [
    "MeanStdNormalization",
    "NoNormalization",
    "RangeNormalization",
    "create_normalization",
    "resolve_normalization_config",
]

from .mean_std_normalization import MeanStdNormalization
from .no_normalization import NoNormalization
from .normalization_factory import create_normalization
from .range_normalization import RangeNormalization
from .statistics import resolve_normalization_config
