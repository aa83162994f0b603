"""Metrics."""

from quanda.metrics import downstream_eval, ground_truth, heuristics
from quanda.metrics.base import Metric

__all__ = [
    "Metric",
    "downstream_eval",
    "heuristics",
    "ground_truth",
]
