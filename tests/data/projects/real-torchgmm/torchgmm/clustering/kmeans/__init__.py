from .estimator import KMeans
from .model import KMeansModel, KMeansModelConfig

__all__ = [
    "KMeans",
    "KMeansModel",
    "KMeansModelConfig",
]
