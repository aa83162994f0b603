"""Evaluation metrics for data attribution."""

from .britteness import brittleness
from .ground_truth import (
    calculate_lds_ground_truth,
    calculate_loo_ground_truth,
)
from .metrics import (
    lds,
    loo_corr,
    mislabel_detection_auc,
)

__all__ = [
    "brittleness",
    "calculate_lds_ground_truth",
    "calculate_loo_ground_truth",
    "lds",
    "loo_corr",
    "mislabel_detection_auc",
]
