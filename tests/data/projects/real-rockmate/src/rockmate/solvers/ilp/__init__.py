__all__ = ["HILP"]
from .ilp_solver import HILP
