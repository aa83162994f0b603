"""Episode data structures."""

from .episode import Episode, Step

__all__ = ["Episode", "Step"]
