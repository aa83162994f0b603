"""Variant complex constructors (Alpha, Rips, etc.)."""

from .alpha import Alpha
from .dflag import dFlag
from .rips import Rips

__all__ = ["Alpha", "Rips", "dFlag"]
