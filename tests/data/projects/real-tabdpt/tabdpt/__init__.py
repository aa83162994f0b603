from .bar_distribution import (
    FullPrediction,
    distribution_mean,
    distribution_median,
    distribution_mode,
    distribution_quantiles,
    distribution_sample,
)
from .classifier import TabDPTClassifier
from .regressor import OutputType, TabDPTRegressor

__all__ = [
    "TabDPTClassifier",
    "TabDPTRegressor",
    "FullPrediction",
    "OutputType",
    "distribution_mean",
    "distribution_median",
    "distribution_mode",
    "distribution_quantiles",
    "distribution_sample",
]
