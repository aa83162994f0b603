"""Provides tools for plotting."""
from .prediction_trajectory import PredictionTrajectory
from .token_formatter import TokenFormatter
from .trajectory_plotting import TrajectoryLabels, TrajectoryStatistic
