from .transform import transform_point
from .se3 import Parameterization, convert

__all__ = ["transform_point", "Parameterization", "convert"]
