"""
Package containers for quantile metrics in PyTorch Forecasting.
"""

from pytorch_forecasting.metrics._quantile_pkg._quantile_loss_pkg import (
    QuantileLoss_pkg,
)

__all__ = [
    "QuantileLoss_pkg",
]
