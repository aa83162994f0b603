"""Fused fill + blend: builds the multi-band blend weight mask directly from
a solve's own patch coverage instead of running fill and blend as two
independent full-image passes.

:func:`draw_blend_mask` reuses the weighted-overlap accumulation the
renderer already computes for reconstruction as the blend weight too, so it
naturally feathers outward from dense, confident matches near the hole's
centre to sparser coverage at the solved region's edge, instead of a second,
generic morphological soften pass over the raw hole shape. This only
applies to a single, un-multiscaled solve, so large holes that need
coarse-to-fine solving should keep using
:class:`fillengines.primary.PrimaryFillEngine`/:class:`compositor.PatchCompositor`.
"""

from __future__ import annotations

from typing import List, Optional

import numpy as np

from ..fillengines.primary.patch_grid_solver import PatchCopyRecord, PrimaryFillEngineImpl
from ..fillengines.primary.renderer import PatchFieldRenderer
from ..imageutil import as_float_rgb
from .multiband_blender import MultiBandBlender


def draw_blend_mask(shape: tuple[int, int], records: List[PatchCopyRecord],
                    patch_radius: int) -> np.ndarray:
    """Per pixel accumulated patch weight, normalised to ``[0, 1]``."""
    H, W = shape
    r = patch_radius
    wsum = np.zeros((H, W), dtype=np.float64)
    for rec in records:
        y0, y1 = max(0, rec.cy - r), min(H, rec.cy + r + 1)
        x0, x1 = max(0, rec.cx - r), min(W, rec.cx + r + 1)
        wsum[y0:y1, x0:x1] += rec.weight
    peak = wsum.max()
    return wsum / peak if peak > 0 else wsum


class FusedPatchBlendCompositor:
    """Renders a ``PatchCopyRecord`` list and blends it in one fused pass."""

    def __init__(self, bands: int = 3, device: Optional[str] = "auto"):
        self.bands = bands
        self.device = device
        self.renderer = PatchFieldRenderer()

    def composite(self, image: np.ndarray, hole: np.ndarray,
                 records: List[PatchCopyRecord], patch_radius: int) -> np.ndarray:
        image = as_float_rgb(image).astype(np.float64)
        filled = self.renderer.render(image, hole, records, patch_radius)
        weight_mask = draw_blend_mask(hole.shape, records, patch_radius)
        # never blend below full strength inside the hole itself, even where
        # patch coverage happens to be sparse -- the hole must stay fully filled
        weight_mask = np.maximum(weight_mask, hole.astype(np.float64))
        safe_bg = image.copy()
        safe_bg[hole] = filled[hole]
        return MultiBandBlender(self.bands, device=self.device).pyramid_blend(
            filled, safe_bg, weight_mask)


def solve_and_blend(image: np.ndarray, hole: np.ndarray, invalid: Optional[np.ndarray] = None,
                    solver: Optional[PrimaryFillEngineImpl] = None, patch_radius: int = 4,
                    bands: int = 3, device: Optional[str] = "auto",
                    progress=None, cancel=None) -> np.ndarray:
    """One-shot solve (no multiscale) and blend in a single fused pass."""
    if solver is None:
        solver = PrimaryFillEngineImpl(patch_radius=patch_radius)
    if invalid is None:
        invalid = hole
    records = solver.solve(image, hole, invalid, progress=progress, cancel=cancel)
    return FusedPatchBlendCompositor(bands=bands, device=device).composite(
        image, hole, records, solver.patch_radius)
