from ignite.metrics.regression import (
    canberra_metric,
    fractional_absolute_error,
    fractional_bias,
    geometric_mean_absolute_error,
    geometric_mean_relative_absolute_error,
    manhattan_distance,
    maximum_absolute_error,
    mean_absolute_relative_error,
    mean_error,
    mean_normalized_bias,
    median_absolute_error,
    median_absolute_percentage_error,
    median_relative_absolute_error,
    r2_score,
    wave_hedges_distance,
)
from ignite.metrics.regression.canberra_metric import CanberraMetric
from ignite.metrics.regression.fractional_absolute_error import FractionalAbsoluteError
from ignite.metrics.regression.fractional_bias import FractionalBias
from ignite.metrics.regression.geometric_mean_absolute_error import GeometricMeanAbsoluteError
from ignite.metrics.regression.geometric_mean_relative_absolute_error import GeometricMeanRelativeAbsoluteError
from ignite.metrics.regression.manhattan_distance import ManhattanDistance
from ignite.metrics.regression.maximum_absolute_error import MaximumAbsoluteError
from ignite.metrics.regression.mean_absolute_relative_error import MeanAbsoluteRelativeError
from ignite.metrics.regression.mean_error import MeanError
from ignite.metrics.regression.mean_normalized_bias import MeanNormalizedBias
from ignite.metrics.regression.median_absolute_error import MedianAbsoluteError
from ignite.metrics.regression.median_absolute_percentage_error import MedianAbsolutePercentageError
from ignite.metrics.regression.median_relative_absolute_error import MedianRelativeAbsoluteError
from ignite.metrics.regression.r2_score import R2Score
from ignite.metrics.regression.wave_hedges_distance import WaveHedgesDistance


__all__ = [
    "CanberraMetric",
    "FractionalAbsoluteError",
    "FractionalBias",
    "GeometricMeanAbsoluteError",
    "GeometricMeanRelativeAbsoluteError",
    "ManhattanDistance",
    "MaximumAbsoluteError",
    "MeanAbsoluteRelativeError",
    "MeanError",
    "MeanNormalizedBias",
    "MedianAbsoluteError",
    "MedianAbsolutePercentageError",
    "MedianRelativeAbsoluteError",
    "R2Score",
    "WaveHedgesDistance",
    "canberra_metric",
    "fractional_absolute_error",
    "fractional_bias",
    "geometric_mean_absolute_error",
    "geometric_mean_relative_absolute_error",
    "manhattan_distance",
    "maximum_absolute_error",
    "mean_absolute_relative_error",
    "mean_error",
    "mean_normalized_bias",
    "median_absolute_error",
    "median_absolute_percentage_error",
    "median_relative_absolute_error",
    "r2_score",
    "wave_hedges_distance",
]
