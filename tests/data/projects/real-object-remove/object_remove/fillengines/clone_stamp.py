"""Manual clone-stamp tool.

The user explicitly picks a source point instead of an engine searching for
one: everything downstream (patch copy, compositing, blend) is the same
machinery every other engine uses -- this class exposes the same
``fill(image, mask, progress=None, cancel=None)`` contract as every tier so
it composes with :class:`render.compositor.PatchCompositor` exactly like
any other engine, with the source offset supplied directly instead of
searched for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

import numpy as np

from ..imageutil import as_float_rgb


def offset_from_points(source_point: Tuple[int, int], target_point: Tuple[int, int]) -> Tuple[int, int]:
    """``(source_y, source_x)``, ``(target_y, target_x)`` -> the ``(oy, ox)``
    rigid offset such that ``out[y, x] = image[y - oy, x - ox]`` places the
    source point's content at the target point (the two-tap clone-stamp UI
    gesture: tap the source, then start painting from a target)."""
    sy, sx = source_point
    ty, tx = target_point
    return (ty - sy, tx - sx)


@dataclass
class CloneStampEngine:
    """A fixed rigid offset applied over the whole mask -- no search, so
    this is effectively instant (matching a real clone-stamp tool, where the
    offset is fixed for the duration of one brush stroke even as more of the
    mask gets painted)."""

    source_offset: Tuple[int, int]

    def fill(self, image: np.ndarray, mask: np.ndarray, progress=None, cancel=None) -> np.ndarray:
        img = as_float_rgb(image).astype(np.float64)
        hole = np.ascontiguousarray(mask > 0)
        H, W = hole.shape
        oy, ox = self.source_offset
        ys = np.clip(np.arange(H) - oy, 0, H - 1)
        xs = np.clip(np.arange(W) - ox, 0, W - 1)
        shifted = img[np.ix_(ys, xs)]
        out = img.copy()
        out[hole] = shifted[hole]
        if progress is not None:
            progress(1.0)
        return out
