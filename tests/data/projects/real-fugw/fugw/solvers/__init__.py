from .dense import FUGWSolver
from .sparse import FUGWSparseSolver

__all__ = ["FUGWSolver", "FUGWSparseSolver"]
