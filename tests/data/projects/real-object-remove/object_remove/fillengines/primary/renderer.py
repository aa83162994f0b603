"""Composites a sparse :class:`PatchCopyRecord` list into the hole via
overlap-weighted averaging. Kept separate from :mod:`patch_grid_solver` so
solve and render stay independently testable and swappable.
"""

from __future__ import annotations

from typing import List

import numpy as np

from .patch_grid_solver import PatchCopyRecord


class PatchFieldRenderer:
    def render(self, image: np.ndarray, hole: np.ndarray,
              records: List[PatchCopyRecord], patch_radius: int) -> np.ndarray:
        r = patch_radius
        H, W, C = image.shape
        acc = np.zeros((H, W, C), dtype=np.float64)
        wsum = np.zeros((H, W, 1), dtype=np.float64)
        for rec in records:
            cy0, cy1 = max(0, rec.cy - r), min(H, rec.cy + r + 1)
            cx0, cx1 = max(0, rec.cx - r), min(W, rec.cx + r + 1)
            sy0 = cy0 - rec.cy + rec.sy
            sx0 = cx0 - rec.cx + rec.sx
            sh, sw = cy1 - cy0, cx1 - cx0
            src = image[sy0:sy0 + sh, sx0:sx0 + sw]
            acc[cy0:cy1, cx0:cx1] += rec.weight * src
            wsum[cy0:cy1, cx0:cx1] += rec.weight
        out = image.copy()
        filled = (wsum[:, :, 0] > 0) & hole
        recon = acc / np.maximum(wsum, 1e-9)
        out[filled] = recon[filled]
        return out
