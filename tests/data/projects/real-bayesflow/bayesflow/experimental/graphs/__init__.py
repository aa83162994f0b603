from .expanded_graph import ExpandedGraph
from .inverted_graph import InvertedGraph
from .simulation_graph import SimulationGraph

__all__ = ["SimulationGraph", "ExpandedGraph", "InvertedGraph"]
