from .graphical_simulator import GraphicalSimulator, SimulationOutput
from . import example_simulators

__all__ = ["GraphicalSimulator", "SimulationOutput", "example_simulators"]
