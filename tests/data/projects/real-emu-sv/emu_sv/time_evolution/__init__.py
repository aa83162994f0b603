from .interface import BaseStepper
from .implementations import EvolveDensityMatrix, EvolveMonteCarlo, EvolveStateVector

__all__ = [
    "EvolveDensityMatrix",
    "EvolveMonteCarlo",
    "EvolveStateVector",
    "BaseStepper",
]
