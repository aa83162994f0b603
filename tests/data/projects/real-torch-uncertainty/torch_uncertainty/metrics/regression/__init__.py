# ruff: noqa: F401
from .depth import (
    Log10,
    MeanAbsoluteErrorInverse,
    MeanGTRelativeAbsoluteError,
    MeanGTRelativeSquaredError,
    MeanSquaredErrorInverse,
    MeanSquaredLogError,
    SILog,
    ThresholdAccuracy,
)
from .interval import IntervalCoverage, IntervalScore, MeanIntervalWidth
from .nll import DistributionNLL
from .quantile_calibration import QuantileCalibrationError
