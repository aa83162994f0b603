"""Gaussian Error Linear Unit activation."""

from .activation import Activation


class GELU(Activation):
    """Tanh approximation of the GELU activation used by transformers."""

    name = "GELU"

    def forward(self, x):
        return 0.5 * x * (1 + (x * 0.7978845608 * (1 + 0.044715 * x ** 2)).tanh())
