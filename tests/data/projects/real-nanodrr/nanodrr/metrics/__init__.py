from .geo import DoubleGeodesicSE3
from .ncc import (
    GradientNormalizedCrossCorrelation2d,
    MultiscaleNormalizedCrossCorrelation2d,
    NormalizedCrossCorrelation2d,
)

__all__ = [
    "DoubleGeodesicSE3",
    "GradientNormalizedCrossCorrelation2d",
    "MultiscaleNormalizedCrossCorrelation2d",
    "NormalizedCrossCorrelation2d",
]
