from .calibration import DirichletCalibrator
