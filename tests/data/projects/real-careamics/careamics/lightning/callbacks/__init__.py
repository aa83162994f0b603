"""Callbacks module."""

__all__ = [
    "ConfigSaverCallback",
    "DataStatsCallback",
    "PredictionStoppedException",
    "PredictionWriterCallback",
    "ProgressBarCallback",
    "StopPredictionCallback",
]


from .config_saver_callback import ConfigSaverCallback
from .data_stats_callback import DataStatsCallback
from .prediction import PredictionWriterCallback
from .progress_bar_callback import ProgressBarCallback
from .stop_prediction_callback import (
    PredictionStoppedException,
    StopPredictionCallback,
)
