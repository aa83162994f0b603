"""Ground truth metrics."""

from quanda.metrics.ground_truth.linear_datamodeling import (
    LinearDatamodelingMetric,
)

__all__ = ["LinearDatamodelingMetric"]
