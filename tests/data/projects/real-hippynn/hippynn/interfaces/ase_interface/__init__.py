"""
For using hippynn with the Atomic Simulation Environment (ASE)

"""
from .calculator import HippynnCalculator, calculator_from_model

from .pairfinder import ASEPairNode

from .ase_database import AseDatabase

__all__ = ["HippynnCalculator", "calculator_from_model", "AseDatabase"]
