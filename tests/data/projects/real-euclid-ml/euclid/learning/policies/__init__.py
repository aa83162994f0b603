"""Reinforcement-learning policies."""

from .policy import Policy
from .categorial import CategoricalPolicy
from .gaussian import GaussianPolicy

__all__ = ["Policy", "CategoricalPolicy", "GaussianPolicy"]
