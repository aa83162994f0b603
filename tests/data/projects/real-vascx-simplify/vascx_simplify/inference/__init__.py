"""Inference module - ensemble models and sliding window utilities."""

from .base import EnsembleBase
from .classification import ClassificationEnsemble
from .heatmap import HeatmapRegressionEnsemble
from .regression import RegressionEnsemble
from .segmentation import EnsembleSegmentation
from .sliding_window import sliding_window_inference

__all__ = [
    "sliding_window_inference",
    "EnsembleBase",
    "EnsembleSegmentation",
    "ClassificationEnsemble",
    "RegressionEnsemble",
    "HeatmapRegressionEnsemble",
]
