"""
`continuiti.pde`

This module contains utilities for solving PDEs in continuiti,
e.g., physics-informed loss functions.
"""

from .grad import Grad, grad, Div, div
from .physicsinformed import PDE, PhysicsInformedLoss

__all__ = [
    "PDE",
    "PhysicsInformedLoss",
    "Grad",
    "Div",
    "grad",
    "div",
]
