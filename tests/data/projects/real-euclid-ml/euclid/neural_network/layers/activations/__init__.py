"""Activation layers."""

from .activation import Activation
from .gelu import GELU
from .leaky_relu import LeakyReLU
from .linear import Linear
from .relu import ReLU
from .sigmoid import Sigmoid
from .softmax import Softmax
from .tanh import Tanh

__all__ = ["Activation", "GELU", "LeakyReLU", "Linear", "ReLU", "Sigmoid", "Softmax", "Tanh"]
