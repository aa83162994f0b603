__all__ = ["HILP", "RK_rotor", "TwRemat", "CheapSolver", "FastSolver"]

from .ilp.ilp_solver import HILP
from .cheap import CheapSolver
from .main import FastSolver
from .rk_rotor import RK_rotor

from .twremat import TwRemat
