"""Model utils."""

from .activation import get_activation

__all__ = ["get_activation"]
