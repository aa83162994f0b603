"""
KAN (Kolmogorov Arnold Network) layer implementation.
"""

from pytorch_forecasting.layers._kan._kan_layer import KANLayer

__all__ = ["KANLayer"]
