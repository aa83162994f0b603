# pyre-strict
from captum.module.binary_concrete_stochastic_gates import BinaryConcreteStochasticGates
from captum.module.gaussian_stochastic_gates import GaussianStochasticGates
from captum.module.stochastic_gates_base import StochasticGatesBase

__all__ = [
    "BinaryConcreteStochasticGates",
    "GaussianStochasticGates",
    "StochasticGatesBase",
]
