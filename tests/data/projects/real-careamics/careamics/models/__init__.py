"""Models package."""

__all__ = ["ModelConstraints", "get_model_constraints", "model_factory"]

from .constraints import ModelConstraints, get_model_constraints
from .model_factory import model_factory
