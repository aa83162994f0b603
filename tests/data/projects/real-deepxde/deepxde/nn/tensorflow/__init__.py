"""Package for tensorflow NN modules."""

__all__ = [
    "DeepONet",
    "DeepONetCartesianProd",
    "FNN",
    "NN",
    "PFNN",
    "PODDeepONet",
]

from .deeponet import DeepONet, DeepONetCartesianProd, PODDeepONet
from .fnn import FNN, PFNN
from .nn import NN
