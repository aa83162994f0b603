"""Validation module for FOMO."""

from .config import ValidationConfig
from .point_validator import PointValidator

__all__ = [
    "ValidationConfig",
    "PointValidator",
]
