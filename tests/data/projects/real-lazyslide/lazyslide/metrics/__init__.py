from .segmentation import (
    SegmentationStats,
    accuracy,
    dice,
    f1_score,
    get_instance_stats,
    get_semantic_stats,
    mean_iou,
    pq,
    precision,
    recall,
    sensitivity,
    specificity,
)
from .topk import topk_score

__all__ = [
    "SegmentationStats",
    "accuracy",
    "dice",
    "f1_score",
    "get_instance_stats",
    "get_semantic_stats",
    "mean_iou",
    "pq",
    "precision",
    "recall",
    "sensitivity",
    "specificity",
    "topk_score",
]
