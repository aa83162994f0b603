from .cosine import CosineDistance, LogitCosineDistance, NegativeScaledDotProduct
from .euclidean import EuclideanDistance, EuclideanMean
from .hyperbolic import HyperbolicDistance, HyperbolicMean

__all__ = [
    "EuclideanDistance",
    "EuclideanMean",
    "HyperbolicDistance",
    "HyperbolicMean",
    "CosineDistance",
    "LogitCosineDistance",
    "NegativeScaledDotProduct",
]
