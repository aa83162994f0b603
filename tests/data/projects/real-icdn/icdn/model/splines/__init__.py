from .builder import SplineBuilder
from .multi_cubic import MultiCubicSplineBasis

__all__ = ["MultiCubicSplineBasis", "SplineBuilder"]
