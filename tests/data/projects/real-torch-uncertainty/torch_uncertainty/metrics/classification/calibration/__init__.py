# ruff: noqa: F401
from .adaptive_calibration_error import AdaptiveCalibrationError
from .calibration_error import CalibrationError
from .classwise_calibration_error import ClasswiseCalibrationError
from .smooth_calibration_error import SmoothCalibrationError
