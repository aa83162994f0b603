from pulser.backend.results import Results

from pulser.backend import (
    BitStrings,
    CorrelationMatrix,
    Energy,
    EnergyVariance,
    EnergySecondMoment,
    Expectation,
    Fidelity,
    Occupation,
    StateResult,
)

from .dense_operator import DenseOperator
from .sparse_operator import SparseOperator
from .sv_backend import SVBackend, SVConfig
from .state_vector import StateVector, inner
from .density_matrix_state import DensityMatrix
from .solver import Solver

__all__ = [
    "__version__",
    "BitStrings",
    "CorrelationMatrix",
    "DenseOperator",
    "Energy",
    "EnergySecondMoment",
    "EnergyVariance",
    "Expectation",
    "Fidelity",
    "Occupation",
    "Results",
    "SVBackend",
    "SVConfig",
    "StateResult",
    "StateVector",
    "inner",
    "DensityMatrix",
    "SparseOperator",
    "Solver",
]

__version__ = "2.10.1"
