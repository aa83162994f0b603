from .base import SeparationStrategy

__all__ = ["SeparationStrategy"]
