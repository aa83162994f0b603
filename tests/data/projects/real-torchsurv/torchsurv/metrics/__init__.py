"""Module with metrics for model evaluation."""

from __future__ import annotations

from torchsurv.metrics.auc import Auc
from torchsurv.metrics.brier_score import BrierScore
from torchsurv.metrics.cindex import ConcordanceIndex

__all__ = [
    "Auc",
    "BrierScore",
    "ConcordanceIndex",
]
