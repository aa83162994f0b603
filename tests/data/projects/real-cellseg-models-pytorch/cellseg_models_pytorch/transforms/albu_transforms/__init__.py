from ._composition import ApplyEach, OnlyInstMapTransform
from .inst_transforms import (
    BinarizeTransform,
    CellposeTransform,
    ContourTransform,
    DistTransform,
    EdgeWeightTransform,
    HoverNetTransform,
    OmniposeTransform,
    SmoothDistTransform,
    StardistTransform,
)
from .norm_transforms import (
    MinMaxNormalization,
    Normalization,
    PercentileNormalization,
)
from .strong_augment import AlbuStrongAugment

__all__ = [
    "ApplyEach",
    "OnlyInstMapTransform",
    "AlbuStrongAugment",
    "MinMaxNormalization",
    "PercentileNormalization",
    "Normalization",
    "CellposeTransform",
    "HoverNetTransform",
    "OmniposeTransform",
    "StardistTransform",
    "SmoothDistTransform",
    "DistTransform",
    "ContourTransform",
    "EdgeWeightTransform",
    "BinarizeTransform",
]
