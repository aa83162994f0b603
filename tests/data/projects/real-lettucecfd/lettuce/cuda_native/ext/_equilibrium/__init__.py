from .quadratic_equilibrium import NativeQuadraticEquilibrium

__all__ = [
    'NativeQuadraticEquilibrium',
]
