"""Model constraints."""

__all__ = ["ModelConstraints", "UNetConstraints", "get_model_constraints"]

from .model_constraints import ModelConstraints
from .model_constraints_factory import get_model_constraints
from .unet_constraints import UNetConstraints
