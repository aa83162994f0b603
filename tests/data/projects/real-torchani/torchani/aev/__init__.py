r"""
Atomic Environment Vectors (AEVs) are TorchANI's name for local atomic features,
calculated from the local chemical environment of each atom. This module contains the
AEV Computer, 2-body ("radial"), and 3-body ("angular") AEV terms.
"""

from torchani.aev._computer import AEVComputer
from torchani.aev._terms import (
    Radial,
    Angular,
    ANIRadial,
    ANIAngular,
    RadialArg,
    AngularArg,
)

__all__ = [
    "AEVComputer",
    "Radial",
    "Angular",
    "ANIRadial",
    "ANIAngular",
    "AngularArg",
    "RadialArg",
]
