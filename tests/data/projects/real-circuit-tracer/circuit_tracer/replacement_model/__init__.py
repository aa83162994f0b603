"""
ReplacementModel implementations for different backends.
"""

from .replacement_model import ReplacementModel

__all__ = [
    "ReplacementModel",
]
