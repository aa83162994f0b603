from .incompressible_quadratic_equilibrium import IncompressibleQuadraticEquilibrium
from .quadratic_equilibrium import QuadraticEquilibrium
from .quadratic_equilibrium_less_memory import QuadraticEquilibriumLessMemory

__all__ = [
    'IncompressibleQuadraticEquilibrium',
    'QuadraticEquilibrium',
    'QuadraticEquilibriumLessMemory'
]
