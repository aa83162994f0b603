from .number import *

__all__ = ["FixedPoint", "BlockFloatingPoint", "FloatingPoint"]
