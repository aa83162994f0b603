"""Package for jax NN modules."""

__all__ = ["FNN", "NN", "PFNN"]

from .fnn import FNN, PFNN
from .nn import NN
