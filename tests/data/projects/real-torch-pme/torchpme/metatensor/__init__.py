from .calculator import Calculator
from .ewald import EwaldCalculator
from .p3m import P3MCalculator
from .pme import PMECalculator

__all__ = ["Calculator", "EwaldCalculator", "P3MCalculator", "PMECalculator"]
