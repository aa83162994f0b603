__all__ = [
    "BatchSampler",
    "Chebyshev",
    "Constraint",
    "Data",
    "DataSet",
    "FPDE",
    "Function",
    "FuncConstraint",
    "GRF",
    "GRF_KL",
    "GRF2D",
    "IDE",
    "MfDataSet",
    "MfFunc",
    "PDE",
    "PDEOperator",
    "PDEOperatorCartesianProd",
    "PowerSeries",
    "Quadruple",
    "QuadrupleCartesianProd",
    "TimeFPDE",
    "TimePDE",
    "Triple",
    "TripleCartesianProd",
    "wasserstein2",
]

from .constraint import Constraint
from .data import Data
from .dataset import DataSet
from .fpde import FPDE, TimeFPDE
from .function import Function
from .function_spaces import Chebyshev, GRF, GRF_KL, GRF2D, PowerSeries, wasserstein2
from .func_constraint import FuncConstraint
from .ide import IDE
from .mf import MfDataSet, MfFunc
from .pde import PDE, TimePDE
from .pde_operator import PDEOperator, PDEOperatorCartesianProd
from .quadruple import Quadruple, QuadrupleCartesianProd
from .sampler import BatchSampler
from .triple import Triple, TripleCartesianProd
