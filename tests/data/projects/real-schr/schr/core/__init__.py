"""Core module for schr package.

This module provides abstract base classes for quantum mechanical and QED simulations.
"""

from schr.core.base import Field, Hamiltonian, Solver

__all__ = ["Hamiltonian", "Field", "Solver"]
