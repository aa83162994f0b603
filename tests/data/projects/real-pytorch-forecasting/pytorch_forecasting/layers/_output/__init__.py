"""
Implementation of output layers for PyTorch Forecasting.
"""

from pytorch_forecasting.layers._output._flatten_head import FlattenHead

__all__ = ["FlattenHead"]
