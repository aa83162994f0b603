"""Valid source bookkeeping + sampling.

A source patch is usable only if its whole window is valid (outside every hole),
the byte mask scan discipline from tier 1, here precomputed for the entire image
via a box sum so per candidate validity is an O(1) lookup. Also provides uniform
random sampling over valid source centers for PatchMatch initialisation and
random search.
"""

from __future__ import annotations

import numpy as np


class PatchSearchIndex:
    def __init__(self, invalid: np.ndarray, radius: int):
        """``invalid`` (H, W) bool in *padded* coords: True = cannot be sourced from."""
        self.radius = radius
        self.height, self.width = invalid.shape
        self.source_ok = self._compute_source_ok(invalid, radius)
        ys, xs = np.nonzero(self.source_ok)
        self._src_ys = ys
        self._src_xs = xs
        self.n_sources = len(ys)

    @staticmethod
    def _compute_source_ok(invalid: np.ndarray, r: int) -> np.ndarray:
        """True where a full (2r+1) window contains zero invalid pixels.

        Every center's box sum is pulled from the integral image in one shot
        via four shifted slices, rather than a per pixel Python loop — the
        latter scales with total image area (not hole size) and dominates
        runtime on large images.
        """
        H, W = invalid.shape
        if H <= 2 * r or W <= 2 * r:
            return np.zeros((H, W), dtype=bool)
        integral = np.zeros((H + 1, W + 1), dtype=np.int64)
        integral[1:, 1:] = np.cumsum(np.cumsum(invalid.astype(np.int64), 0), 1)

        d = 2 * r + 1
        box = (integral[d:, d:] - integral[:-d, d:]
               - integral[d:, :-d] + integral[:-d, :-d])
        ok = np.zeros((H, W), dtype=bool)
        ok[r:H - r, r:W - r] = box == 0
        return ok

    def is_source_ok(self, sy: int, sx: int) -> bool:
        if 0 <= sy < self.height and 0 <= sx < self.width:
            return bool(self.source_ok[sy, sx])
        return False

    def sample(self, rng: np.random.Generator, n: int = 1):
        if self.n_sources == 0:
            return np.empty((0, 2), dtype=np.int32)
        idx = rng.integers(0, self.n_sources, size=n)
        return np.stack([self._src_ys[idx], self._src_xs[idx]], axis=1).astype(np.int32)
