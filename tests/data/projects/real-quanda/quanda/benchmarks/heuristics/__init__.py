"""Benchmarks for heuristic metrics."""

from quanda.benchmarks.heuristics.mixed_datasets import MixedDatasets
from quanda.benchmarks.heuristics.model_randomization import ModelRandomization
from quanda.benchmarks.heuristics.top_k_cardinality import TopKCardinality

__all__ = ["ModelRandomization", "TopKCardinality", "MixedDatasets"]
