"""Heuristic metrics."""

from quanda.metrics.heuristics.mixed_datasets import MixedDatasetsMetric
from quanda.metrics.heuristics.model_randomization import (
    ModelRandomizationMetric,
)
from quanda.metrics.heuristics.top_k_cardinality import TopKCardinalityMetric

__all__ = [
    "ModelRandomizationMetric",
    "TopKCardinalityMetric",
    "MixedDatasetsMetric",
]
