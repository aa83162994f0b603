"""Package for pytorch NN modules."""

__all__ = [
    "DeepONet",
    "DeepONetCartesianProd",
    "FNN",
    "MIONetCartesianProd",
    "NN",
    "PFNN",
    "PODDeepONet",
    "PODMIONet",
]

from .deeponet import DeepONet, DeepONetCartesianProd, PODDeepONet
from .mionet import MIONetCartesianProd, PODMIONet
from .fnn import FNN, PFNN
from .nn import NN
