from .lens_source import LensSource
from .microlens import Microlens
from .simulator import build_simulator

__all__ = ("LensSource", "Microlens", "build_simulator")
