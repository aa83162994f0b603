"""Patch distance scoring.

Classic SSD on the current image estimate. A higher quality version would
replace this with a *learned* feature distance computed once up front: that
is a drop in swap here, precompute a feature image and point
:class:`PatchScorer` at it instead of the raw RGB. The search algorithm
doesn't change, which is exactly why learned features are a natural follow on
upgrade rather than a redesign.
"""

from __future__ import annotations

import numpy as np


class PatchScorer:
    """Sum of squared differences over a fixed square window in padded coords."""

    def __init__(self, radius: int = 3):
        self.radius = radius

    def distance(self, feat: np.ndarray, ty: int, tx: int,
                 sy: int, sx: int) -> float:
        r = self.radius
        a = feat[ty - r:ty + r + 1, tx - r:tx + r + 1]
        b = feat[sy - r:sy + r + 1, sx - r:sx + r + 1]
        d = (a - b).ravel()
        return float(d @ d)

    def distance_weighted(self, feat: np.ndarray, weight: np.ndarray,
                          ty: int, tx: int, sy: int, sx: int) -> float:
        """SSD weighted per pixel (used to down weight still unknown pixels)."""
        r = self.radius
        a = feat[ty - r:ty + r + 1, tx - r:tx + r + 1]
        b = feat[sy - r:sy + r + 1, sx - r:sx + r + 1]
        w = weight[ty - r:ty + r + 1, tx - r:tx + r + 1]
        d = (a - b)
        return float(np.einsum("ij,ijk,ijk->", w, d, d))
