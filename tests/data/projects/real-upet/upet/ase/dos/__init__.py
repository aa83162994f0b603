from ._models import get_pet_mad_dos
from .calculator import PETMADDOSCalculator


__all__ = ["PETMADDOSCalculator", "get_pet_mad_dos"]
