"""
Decomposition layers for PyTorch Forecasting.
"""

from pytorch_forecasting.layers._decomposition._series_decomp import SeriesDecomposition

__all__ = [
    "SeriesDecomposition",
]
