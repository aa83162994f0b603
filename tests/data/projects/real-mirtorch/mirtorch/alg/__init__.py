from .cg import CG
from .fbpd import FBPD
from .fista import FISTA
from .pogm import POGM
from .solver import SolverResult
from .spectral import power_iter

__all__ = ["CG", "FBPD", "FISTA", "POGM", "SolverResult", "power_iter"]
