"""Loss functions."""

from .loss import Loss
from .cross_entropy import CrossEntropy
from .huber import Huber
from .mse import MSE

__all__ = ["Loss", "CrossEntropy", "Huber", "MSE"]
