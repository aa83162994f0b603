"""Neural-network building blocks."""

from . import layers, losses, networks

__all__ = ["layers", "losses", "networks"]
