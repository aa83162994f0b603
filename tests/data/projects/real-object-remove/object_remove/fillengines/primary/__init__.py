"""General-purpose fill engine: quad-tree patch-grid search with adaptive,
coarse-to-fine scale selection. Exposes ``fill(image, mask, progress=None,
cancel=None)`` so the pipeline can pick it without special casing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...imageutil import as_float_rgb
from ...mask.connected_components import split_components
from ...pyramid.image_pyramid import ImagePyramid, upsample
from ...pyramid.scale_scheduler import ScaleScheduler
from ...runtime.device import resolve_device
from .patch_grid_solver import PatchCopyRecord, PrimaryFillEngineImpl
from .quad_tree_index import QuadTreeIndex
from .renderer import PatchFieldRenderer

__all__ = [
    "PrimaryFillEngine", "PrimaryFillEngineImpl", "PatchCopyRecord",
    "PatchFieldRenderer", "QuadTreeIndex",
]


def _hole_pyramid(hole: np.ndarray, levels: int):
    from ...pyramid.image_pyramid import downsample
    pyr = [hole.astype(bool)]
    level_hole = hole.astype(np.float64)
    for _ in range(levels - 1):
        level_hole = downsample(level_hole)
        pyr.append(level_hole > 0.4)
        if min(level_hole.shape) < 2:
            break
    return pyr


def _resize_mask(mask: np.ndarray, shape) -> np.ndarray:
    h, w = shape
    ys = np.linspace(0, mask.shape[0] - 1, h).astype(int)
    xs = np.linspace(0, mask.shape[1] - 1, w).astype(int)
    return mask[np.ix_(ys, xs)]


def _fill_component(image: np.ndarray, comp_hole: np.ndarray, invalid_hole: np.ndarray,
                    solver, renderer: PatchFieldRenderer, scheduler: ScaleScheduler,
                    progress=None, cancel=None) -> np.ndarray:
    area = int(comp_hole.sum())
    ys, xs = np.nonzero(comp_hole)
    bbox = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)

    # a small hole can't amortise multi-scale overhead, so solve it directly
    # at full resolution instead of building a pyramid
    if area <= solver.small_image_area:
        records = solver.solve(image, comp_hole, invalid_hole, progress=progress, cancel=cancel)
        return renderer.render(image, comp_hole, records, solver.patch_radius)

    levels = scheduler.choose_levels_adaptive(image, comp_hole, bbox)
    img_pyr = ImagePyramid(image, levels)
    L = img_pyr.levels
    hole_pyr = _hole_pyramid(comp_hole, L)
    invalid_pyr = _hole_pyramid(invalid_hole, L)

    level_estimate = None
    for li in range(L - 1, -1, -1):
        if cancel is not None and cancel():
            break
        level_img = img_pyr.gaussian[li].copy()
        hole_lvl = hole_pyr[li]
        invalid_lvl = invalid_pyr[li]
        if hole_lvl.shape != level_img.shape[:2]:
            hole_lvl = _resize_mask(hole_lvl, level_img.shape[:2])
            invalid_lvl = _resize_mask(invalid_lvl, level_img.shape[:2])
        if level_estimate is not None:
            up = upsample(level_estimate, level_img.shape[:2])
            level_img[invalid_lvl] = up[invalid_lvl]

        def level_progress(p, li=li):
            if progress is not None:
                progress(min(1.0, ((L - 1 - li) + p) / L))

        records = solver.solve(level_img, hole_lvl, invalid_lvl,
                               progress=level_progress, cancel=cancel)
        level_estimate = renderer.render(level_img, hole_lvl, records, solver.patch_radius)
    if progress is not None:
        progress(1.0)
    return level_estimate if level_estimate is not None else image.copy()


@dataclass
class PrimaryFillEngine:
    patch_radius: int = 4
    grid_stride: Optional[int] = None
    max_reuse: int = 3
    small_image_area: int = 48 * 48
    seed: int = 11
    isolate_groups: bool = True
    device: Optional[str] = "auto"

    def __post_init__(self):
        torch_device = resolve_device(self.device)
        if torch_device is not None:
            from .patch_grid_solver_gpu import TorchPrimaryFillEngineImpl
            self.solver = TorchPrimaryFillEngineImpl(
                patch_radius=self.patch_radius, grid_stride=self.grid_stride,
                max_reuse=self.max_reuse, small_image_area=self.small_image_area,
                seed=self.seed, device=torch_device)
        else:
            self.solver = PrimaryFillEngineImpl(
                patch_radius=self.patch_radius, grid_stride=self.grid_stride,
                max_reuse=self.max_reuse, small_image_area=self.small_image_area,
                seed=self.seed)
        self.renderer = PatchFieldRenderer()
        self.scheduler = ScaleScheduler()

    def fill(self, image: np.ndarray, mask: np.ndarray,
             progress=None, cancel=None) -> np.ndarray:
        img = as_float_rgb(image).astype(np.float64).copy()
        full_hole = mask > 0
        if not full_hole.any():
            return img

        components = split_components(full_hole) if self.isolate_groups else [full_hole]
        if not components:
            return img
        n = len(components)
        for i, comp in enumerate(components):
            if cancel is not None and cancel():
                break

            def comp_progress(p, i=i):
                if progress is not None:
                    progress((i + p) / n)

            img = _fill_component(img, comp, full_hole, self.solver, self.renderer,
                                  self.scheduler, progress=comp_progress, cancel=cancel)
            # once a component is filled it becomes valid source for later ones
            full_hole = full_hole & ~comp
        if progress is not None:
            progress(1.0)
        return img
