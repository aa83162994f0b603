"""
Filtering layers for time series forecasting models.
"""

from pytorch_forecasting.layers._filter._moving_avg_filter import MovingAvg

__all__ = [
    "MovingAvg",
]
