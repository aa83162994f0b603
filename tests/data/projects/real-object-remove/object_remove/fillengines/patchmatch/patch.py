"""Patch + nearest neighbour field data structures.

CPU first, for clarity and to keep the dependency footprint small. A GPU
version would store this same field in a render target texture instead of a
numpy array; the algorithm is identical.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Patch:
    """A square patch defined by its center and radius (in padded coords)."""

    y: int
    x: int
    radius: int

    @property
    def size(self) -> int:
        return 2 * self.radius + 1


class NearestNeighborField:
    """For each target pixel, the source patch center it currently maps to.

    ``coords[y, x] = (sy, sx)`` source center; ``dist[y, x]`` = patch distance.
    All coordinates are in the *padded* frame used by the solver.
    """

    def __init__(self, height: int, width: int):
        self.height = height
        self.width = width
        self.coords = np.zeros((height, width, 2), dtype=np.int32)
        self.dist = np.full((height, width), np.inf, dtype=np.float64)

    def set(self, y: int, x: int, sy: int, sx: int, d: float) -> None:
        self.coords[y, x, 0] = sy
        self.coords[y, x, 1] = sx
        self.dist[y, x] = d

    def source_of(self, y: int, x: int) -> tuple[int, int]:
        c = self.coords[y, x]
        return int(c[0]), int(c[1])
