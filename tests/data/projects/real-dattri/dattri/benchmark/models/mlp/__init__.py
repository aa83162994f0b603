"""This module defines the mlp model for the benchmark."""

__all__ = ["MLPMnist", "create_mlp_model"]

from .mlp import MLPMnist, create_mlp_model
