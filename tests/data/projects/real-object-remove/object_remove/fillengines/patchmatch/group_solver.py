"""Multi scale driver + multi group isolation.

* Coarse to fine: solve a tiny problem on the coarsest pyramid level, upsample
  the fill as the initialisation for the next finer level, repeat — this is what
  lets PatchMatch propagate structure across a large hole.
* Multi group: each connected component is solved with the *other* components
  held as invalid (unusable as source) so one object's pixels never leak into
  another's fill.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ...imageutil import as_float_rgb
from ...pyramid.image_pyramid import ImagePyramid, upsample, downsample
from ...pyramid.scale_scheduler import ScaleScheduler
from ..patch_comparator import SegmentValidityMap  # noqa: F401 (kept for symmetry)
from .solver import PatchMatchSolver


def _hole_pyramid(hole: np.ndarray, levels: int):
    pyr = [hole.astype(bool)]
    level_hole = hole.astype(np.float64)
    for _ in range(levels - 1):
        level_hole = downsample(level_hole)
        pyr.append(level_hole > 0.4)
        if min(level_hole.shape) < 2:
            break
    return pyr


def _pad(array: np.ndarray, r: int, value=0.0):
    if array.ndim == 3:
        return np.pad(array, ((r, r), (r, r), (0, 0)), mode="edge")
    return np.pad(array, ((r, r), (r, r)), mode="constant", constant_values=value)


def multiscale_fill(image: np.ndarray, target_hole: np.ndarray,
                    invalid_hole: np.ndarray, solver: PatchMatchSolver,
                    levels: Optional[int], progress=None, cancel=None) -> np.ndarray:
    """Fill ``target_hole`` coarse to fine; ``invalid_hole`` = pixels no source may use.

    ``levels=None`` selects the level count adaptively per call via
    ``ScaleScheduler.choose_levels_adaptive`` (blur tested, not a fixed size
    formula) instead of using a single fixed count for every hole.
    """
    r = solver.radius
    img = as_float_rgb(image).astype(np.float64)
    if levels is None:
        ys, xs = np.nonzero(target_hole)
        bbox = ((int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
               if len(ys) else None)
        levels = ScaleScheduler().choose_levels_adaptive(img, target_hole, bbox)
    img_pyr = ImagePyramid(img, levels)
    L = img_pyr.levels
    target_hole_pyr = _hole_pyramid(target_hole, L)
    invalid_pyr = _hole_pyramid(invalid_hole, L)

    level_estimate = None
    for li in range(L - 1, -1, -1):
        if cancel is not None and cancel():
            break
        level_img = img_pyr.gaussian[li].copy()
        target_hole_lvl = target_hole_pyr[li]
        invalid_lvl = invalid_pyr[li]
        if target_hole_lvl.shape != level_img.shape[:2]:
            target_hole_lvl = _resize_mask(target_hole_lvl, level_img.shape[:2])
            invalid_lvl = _resize_mask(invalid_lvl, level_img.shape[:2])

        if level_estimate is None:
            valid = ~invalid_lvl
            seed = level_img[valid].mean(axis=0) if valid.any() else np.zeros(3)
            level_img[invalid_lvl] = seed
        else:
            upsampled_estimate = upsample(level_estimate, level_img.shape[:2])
            level_img[invalid_lvl] = upsampled_estimate[invalid_lvl]

        padded_img = _pad(level_img, r)
        padded_hole = _pad(target_hole_lvl, r, value=False).astype(bool)
        padded_invalid = _pad(invalid_lvl, r, value=False).astype(bool)

        def level_progress(p, li=li):
            if progress is not None:
                done = (L - 1 - li) + p
                progress(min(1.0, done / L))

        filled = solver.solve_level(padded_img, padded_hole, padded_invalid,
                                    progress=level_progress, cancel=cancel)
        level_estimate = filled[r:-r, r:-r] if r > 0 else filled

    if progress is not None:
        progress(1.0)
    out = as_float_rgb(image).astype(np.float64).copy()
    hole_mask = target_hole > 0
    out[hole_mask] = level_estimate[hole_mask]
    return out


def _resize_mask(mask: np.ndarray, shape) -> np.ndarray:
    h, w = shape
    ys = (np.linspace(0, mask.shape[0] - 1, h)).astype(int)
    xs = (np.linspace(0, mask.shape[1] - 1, w)).astype(int)
    return mask[np.ix_(ys, xs)]


class GroupSolver:
    """Solve each connected component independently, others held invalid.

    ``levels=None`` selects the pyramid depth adaptively per component
    (see :func:`multiscale_fill`) instead of a single fixed count.
    """

    def __init__(self, solver: PatchMatchSolver, levels: Optional[int] = 4):
        self.solver = solver
        self.levels = levels

    def fill(self, image: np.ndarray, mask: np.ndarray, components=None,
             progress=None, cancel=None) -> np.ndarray:
        from ...mask.connected_components import split_components

        img = as_float_rgb(image).astype(np.float64).copy()
        full_hole = mask > 0
        if components is None:
            components = split_components(full_hole)
        if not components:
            return img
        n = len(components)
        for i, comp in enumerate(components):
            if cancel is not None and cancel():
                break

            def comp_progress(p, i=i):
                if progress is not None:
                    progress((i + p) / n)

            img = multiscale_fill(img, comp, full_hole, self.solver,
                                  self.levels, progress=comp_progress, cancel=cancel)
            # once a component is filled it becomes valid source for later ones
            full_hole = full_hole & ~comp
        return img
