"""Distributions for use with normalising flows"""

from .resampled import ResampledGaussian
from .uniform import MultivariateUniform

__all__ = [
    "MultivariateUniform",
    "ResampledGaussian",
]
