"""Core tensor primitives and tensor math."""

from .tensor import Tensor
from . import math

__all__ = ["Tensor", "math"]
