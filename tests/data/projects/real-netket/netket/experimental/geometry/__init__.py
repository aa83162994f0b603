"""Geometry classes for continuous Hilbert spaces."""

__all__ = [
    "Cell",
    "FreeSpace",
]

from .cell import Cell, FreeSpace
