"""Projection models for refractive multi-view geometry."""

from .protocol import ProjectionModel
from .refractive import RefractiveProjectionModel

__all__ = ["ProjectionModel", "RefractiveProjectionModel"]
