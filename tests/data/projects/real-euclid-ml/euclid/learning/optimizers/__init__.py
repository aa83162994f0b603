"""Parameter optimizers."""

from .optimizer import Optimizer
from .adam import Adam
from .rmsprop import RMSProp
from .sgd import SGD

__all__ = ["Optimizer", "Adam", "RMSProp", "SGD"]
