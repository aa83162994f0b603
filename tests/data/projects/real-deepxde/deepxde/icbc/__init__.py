"""Initial conditions and boundary conditions."""

__all__ = [
    "BC",
    "DirichletBC",
    "Interface2DBC",
    "NeumannBC",
    "RobinBC",
    "PeriodicBC",
    "OperatorBC",
    "PointSetBC",
    "PointSetOperatorBC",
    "IC",
]

from .boundary_conditions import (
    BC,
    DirichletBC,
    Interface2DBC,
    NeumannBC,
    RobinBC,
    PeriodicBC,
    OperatorBC,
    PointSetBC,
    PointSetOperatorBC,
)
from .initial_conditions import IC
