"""ODE solvers for flow matching models."""

from .ode_solver import WeatherODESolver
from .riemannian import RiemannianSolver
from .langevin import langevin_dynamics

__all__ = [
    'WeatherODESolver',
    'RiemannianSolver',
    'langevin_dynamics'
]
