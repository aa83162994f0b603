"""Ground truth benchmarks."""

from quanda.benchmarks.ground_truth.linear_datamodeling import (
    LinearDatamodeling,
)

__all__ = ["LinearDatamodeling"]
