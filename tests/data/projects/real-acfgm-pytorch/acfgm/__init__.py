"""Adaptive Composite Fast Gradient Method optimizer for PyTorch."""

from .optimizer import ACFGM

__version__ = "0.1.0"

__all__ = ["ACFGM"]
