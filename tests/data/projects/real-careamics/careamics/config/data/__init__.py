"""Data Pydantic configuration models."""

__all__ = [
    "DataConfig",
    "MaskPatchFilterConfig",
    "MaxPatchFilterConfig",
    "MeanStdConfig",
    "MeanStdPatchFilterConfig",
    "MicroSplitDataConfig",
    "MinMaxConfig",
    "NoNormConfig",
    "NormalizationConfig",
    "QuantileConfig",
    "RandomPatchingConfig",
    "ShannonPatchFilterConfig",
    "TiledPatchingConfig",
    "WholePatchingConfig",
]

from .data_config import DataConfig
from .microsplit_data_config import MicroSplitDataConfig
from .normalization_config import (
    MeanStdConfig,
    MinMaxConfig,
    NoNormConfig,
    NormalizationConfig,
    QuantileConfig,
)
from .patch_filter import (
    MaskPatchFilterConfig,
    MaxPatchFilterConfig,
    MeanStdPatchFilterConfig,
    ShannonPatchFilterConfig,
)
from .patching_strategies import (
    RandomPatchingConfig,
    TiledPatchingConfig,
    WholePatchingConfig,
)
