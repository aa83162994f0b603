"""Coarse to fine scheduling.

Decides how many pyramid levels a solve should use from the hole size, and yields
levels coarse to fine so a fill engine can solve a small problem first and
upsample the result as an initialisation for the next finer level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple

import numpy as np

from .image_pyramid import ImagePyramid, gaussian_blur, upsample
from ..imageutil import rgb_to_gray


def local_sharpness(image: np.ndarray, region: np.ndarray) -> float:
    """High frequency residual variance within ``region`` -- a Laplacian
    variance style blur metric, built from the pyramid's own kernel. Used by
    :meth:`ScaleScheduler.choose_levels_adaptive` to size the working
    resolution off how detailed the surrounding image content actually is,
    rather than hole size alone."""
    if not region.any():
        return 0.0
    gray = rgb_to_gray(image.astype(np.float32))
    residual = gray - gaussian_blur(gray)
    return float(residual[region].var())


@dataclass
class ScaleScheduler:
    max_levels: int = 5
    min_coarse_dim: int = 16  # stop coarsening when the smaller image side hits this

    def choose_levels(self, image_shape: tuple[int, int],
                      hole_bbox: tuple[int, int, int, int] | None = None) -> int:
        """Pick a level count. Bigger holes / images warrant more levels."""
        h, w = image_shape[:2]
        smaller = min(h, w)
        levels = 1
        dim = smaller
        while dim > self.min_coarse_dim and levels < self.max_levels:
            dim //= 2
            levels += 1
        if hole_bbox is not None:
            x0, y0, x1, y1 = hole_bbox
            hole = max(1, max(x1 - x0, y1 - y0))
            # ensure the coarsest level shrinks the hole to a handful of pixels
            levels_needed = 1
            hole_dim = hole
            while hole_dim > 8 and levels_needed < self.max_levels:
                hole_dim //= 2
                levels_needed += 1
            levels = min(self.max_levels, max(levels, levels_needed))
        return max(1, levels)

    def choose_levels_adaptive(self, image: np.ndarray, hole: np.ndarray,
                               hole_bbox: Optional[Tuple[int, int, int, int]] = None,
                               sharp_threshold: float = 2e-4, max_extra_levels: int = 2,
                               context_margin: int = 12) -> int:
        """Blur-tested scale selection: the size based :meth:`choose_levels`
        baseline, plus extra levels when the hole's border context is
        sharp/detailed -- a hole on crisp brick gets more working resolution
        than a same size hole on a soft focus background, which size alone
        can't tell apart."""
        H, W = hole.shape
        if hole_bbox is None:
            ys, xs = np.nonzero(hole)
            if len(ys) == 0:
                return 1
            hole_bbox = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
        x0, y0, x1, y1 = hole_bbox
        base = self.choose_levels(image.shape, hole_bbox)
        m = context_margin
        by0, bx0 = max(0, y0 - m), max(0, x0 - m)
        by1, bx1 = min(H, y1 + m), min(W, x1 + m)
        border = np.zeros((H, W), dtype=bool)
        border[by0:by1, bx0:bx1] = True
        border &= ~hole
        if local_sharpness(image, border) < sharp_threshold:
            return base
        extra = min(max_extra_levels, self.max_levels - base)
        return max(1, base + max(0, extra))

    def build(self, image: np.ndarray, levels: int) -> ImagePyramid:
        return ImagePyramid(image, levels)

    @staticmethod
    def coarse_to_fine(pyramid: ImagePyramid) -> Iterator[int]:
        """Yield level indices from coarsest to finest."""
        return iter(range(pyramid.levels - 1, -1, -1))

    @staticmethod
    def upscale_result(coarse: np.ndarray, fine_shape: tuple[int, int]) -> np.ndarray:
        """Upsample a coarse level solve to initialise the next finer level."""
        return upsample(coarse, fine_shape[:2])
