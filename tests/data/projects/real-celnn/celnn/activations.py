"""Public activation function module."""

from .core.activations import (
    identity,
    piecewise_linear,
    relu_activation,
    resolve_activation,
    saturated_linear,
    sigmoid_activation,
    sign_activation,
    tanh_activation,
)

__all__ = [
    "identity",
    "piecewise_linear",
    "relu_activation",
    "resolve_activation",
    "saturated_linear",
    "sign_activation",
    "sigmoid_activation",
    "tanh_activation",
]
