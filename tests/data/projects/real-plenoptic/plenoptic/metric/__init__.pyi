__all__ = [
    "model_metric_factory",
    "mse",
    "ms_ssim",
    "nlpd",
    "ssim",
]

from ._model_metric import model_metric_factory
from ._naive import mse
from ._perceptual_distance import (
    ms_ssim,
    nlpd,
    ssim,
)
