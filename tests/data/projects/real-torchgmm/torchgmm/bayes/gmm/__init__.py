from .estimator import GaussianMixture
from .model import GaussianMixtureModel, GaussianMixtureModelConfig

__all__ = [
    "GaussianMixture",
    "GaussianMixtureModel",
    "GaussianMixtureModelConfig",
]
