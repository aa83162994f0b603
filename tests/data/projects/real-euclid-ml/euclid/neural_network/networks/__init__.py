"""Network containers and base classes."""

from .network import Network
from .sequential import Sequential

__all__ = ["Network", "Sequential"]
