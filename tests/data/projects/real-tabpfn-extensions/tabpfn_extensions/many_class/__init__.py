from ._strategies import (
    AggregationConfig,
    CodebookConfig,
    RowWeightingConfig,
    WeightMode,
)
from .many_class_classifier import ManyClassClassifier

__all__ = [
    "AggregationConfig",
    "CodebookConfig",
    "ManyClassClassifier",
    "RowWeightingConfig",
    "WeightMode",
]
