"""Training/validation metrics: distributed accumulators and image-quality metrics."""

from .distributed_metric import DistributedMetric

__all__ = ["DistributedMetric"]
