"""Environment interfaces."""

from .environment import Environment

__all__ = ["Environment"]
