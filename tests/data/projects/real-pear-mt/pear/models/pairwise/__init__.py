"""Pairwise PEAR model."""

from pear.models.pairwise.pairwise_metric import PairwiseMetric

__all__ = ["PairwiseMetric"]
