# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.
from .nequip_calculator import NequIPCalculator
from .nosehoover import NoseHoover

__all__ = [NequIPCalculator, NoseHoover]
