"""Core data structures and numerical routines."""

from .network import CellularNetwork
from .result import SimulationResult
from .simulation import SimulationConfig
from .templates import Template

__all__ = [
    "CellularNetwork",
    "SimulationConfig",
    "SimulationResult",
    "Template",
]
