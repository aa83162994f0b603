"""Joint candidate optimizers."""

from .base import BaseOptimizer, JointSolution
from .beam import BeamOptimizer
from .greedy import GreedyOptimizer

__all__ = ["BaseOptimizer", "BeamOptimizer", "GreedyOptimizer", "JointSolution"]
