"""Sparse patch-grid fill solver.

Instead of a dense per-pixel nearest-neighbour field, this solves a sparse
grid of patch centres covering the hole (closer to image quilting than a
per-pixel field), searched via a quad-tree (:mod:`quad_tree_index`).
Solve and render are separate steps -- :meth:`PrimaryFillEngineImpl.solve`
returns a list of :class:`PatchCopyRecord`; :mod:`renderer` composites them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from ...imageutil import rgb_to_gray
from .quad_tree_index import QuadTreeIndex


@dataclass
class PatchCopyRecord:
    cy: int
    cx: int
    sy: int
    sx: int
    weight: float = 1.0


def _quantize_segments(image: np.ndarray, n_zones: int = 6) -> np.ndarray:
    luma = rgb_to_gray(image.astype(np.float32))
    return np.clip((luma * n_zones).astype(np.int32), 0, n_zones - 1)


def _is_patch_solid(valid: np.ndarray, y: int, x: int, r: int) -> bool:
    """True iff the whole ``(2r+1)`` window around ``(y, x)`` is usable."""
    H, W = valid.shape
    if y - r < 0 or x - r < 0 or y + r + 1 > H or x + r + 1 > W:
        return False
    return bool(valid[y - r:y + r + 1, x - r:x + r + 1].all())


def _source_ok_mask(valid: np.ndarray, r: int) -> np.ndarray:
    """Vectorised equivalent of ``_is_patch_solid`` over every pixel at once
    via an integral-image box sum, used for the bulk candidate pool;
    ``_is_patch_solid`` itself is used below as a cheap single-patch safety
    check on the chosen source only."""
    H, W = valid.shape
    ok = np.zeros((H, W), dtype=bool)
    if H <= 2 * r or W <= 2 * r:
        return ok
    integral = np.zeros((H + 1, W + 1), dtype=np.int64)
    integral[1:, 1:] = np.cumsum(np.cumsum((~valid).astype(np.int64), 0), 1)
    d = 2 * r + 1
    box = (integral[d:, d:] - integral[:-d, d:] - integral[d:, :-d] + integral[:-d, :-d])
    ok[r:H - r, r:W - r] = box == 0
    return ok


def _hole_layers(hole: np.ndarray) -> np.ndarray:
    """Distance-to-boundary layering via repeated dilation: each hole pixel
    gets a layer number (1 = touches valid context, 2 = next ring in, ...).
    Solving centres in this order (nearest-to-boundary first) means every
    target patch's window has already-solved, real pixel content by the
    time it's scored, instead of the hole's original placeholder pixels."""
    H, W = hole.shape
    layer = np.zeros((H, W), dtype=np.int32)
    remaining = hole.copy()
    frontier = ~hole
    current = 0
    while remaining.any():
        current += 1
        dil = frontier.copy()
        dil[1:, :] |= frontier[:-1, :]
        dil[:-1, :] |= frontier[1:, :]
        dil[:, 1:] |= frontier[:, :-1]
        dil[:, :-1] |= frontier[:, 1:]
        newly = dil & remaining
        if not newly.any():
            layer[remaining] = current
            break
        layer[newly] = current
        remaining &= ~newly
        frontier = newly
    return layer


@dataclass
class PrimaryFillEngineImpl:
    patch_radius: int = 4
    grid_stride: Optional[int] = None   # None => patch_radius (near non-overlapping grid)
    max_reuse: int = 3                  # source reuse cap, for fill diversity
    small_image_area: int = 48 * 48     # below this, use a dense (stride=1) grid
    seed: int = 11

    def solve(self, image: np.ndarray, hole: np.ndarray, invalid: np.ndarray,
             progress=None, cancel=None) -> List[PatchCopyRecord]:
        """Solve ``hole`` with ``invalid`` unusable as source; ``image`` may
        already hold a coarser level's upsampled estimate under the hole."""
        r = self.patch_radius
        H, W = hole.shape
        if H <= 2 * r or W <= 2 * r or not hole.any():
            return []
        valid = ~invalid
        segments = _quantize_segments(image)

        source_ok = _source_ok_mask(valid, r)
        sys_, sxs = np.nonzero(source_ok)
        if len(sys_) == 0:
            return []
        source_coords = np.stack([sys_, sxs], axis=1).astype(np.int64)
        tree = QuadTreeIndex((0, 0, H, W), source_coords)

        area = int(hole.sum())
        stride = 1 if area <= self.small_image_area else (self.grid_stride or max(1, r))
        centers = self._grid_centers(hole, r, stride)
        if len(centers) == 0:
            return []

        # Process centres nearest the hole boundary first, keeping a mutable
        # working copy that each accepted record's patch is written into
        # immediately, so deeper centres score against real solved content
        # instead of the hole's original placeholder pixels.
        layers = _hole_layers(hole)
        order = np.argsort(layers[centers[:, 0], centers[:, 1]], kind="stable")
        centers = centers[order]
        working = image.copy()
        known = valid.copy()

        used: Dict[Tuple[int, int], int] = {}
        records: List[PatchCopyRecord] = []
        total = max(1, len(centers))
        last_source: Optional[Tuple[int, int]] = None

        for i, (cy, cx) in enumerate(centers):
            if cancel is not None and cancel():
                break
            cy, cx = int(cy), int(cx)
            tvalid = known[cy - r:cy + r + 1, cx - r:cx + r + 1]
            best = None
            if last_source is not None:
                # local search near the previous grid cell's chosen source --
                # adjacent grid cells often share a good source region.
                best = tree.nearest_near(working, cy, cx, r,
                                         last_source[0], last_source[1], 4 * r,
                                         target_valid=tvalid)
            if best is None or used.get(best, 0) >= self.max_reuse:
                best = tree.nearest_excluding_overused(working, cy, cx, r, used, self.max_reuse,
                                                        target_valid=tvalid)
            if best is None or not _is_patch_solid(valid, best[0], best[1], r):
                continue
            sy, sx = best
            used[sy, sx] = used.get((sy, sx), 0) + 1
            same_segment = segments[cy, cx] == segments[sy, sx]
            records.append(PatchCopyRecord(cy, cx, sy, sx, weight=1.0 if same_segment else 0.75))
            y0, y1, x0, x1 = cy - r, cy + r + 1, cx - r, cx + r + 1
            sy0, sx0 = y0 - cy + sy, x0 - cx + sx
            working[y0:y1, x0:x1] = working[sy0:sy0 + (y1 - y0), sx0:sx0 + (x1 - x0)]
            known[y0:y1, x0:x1] = True
            last_source = (sy, sx)
            if progress is not None and i % 8 == 0:
                progress((i + 1) / total)
        if progress is not None:
            progress(1.0)
        return records

    @staticmethod
    def _grid_centers(hole: np.ndarray, r: int, stride: int) -> np.ndarray:
        H, W = hole.shape
        ys, xs = np.nonzero(hole)
        if len(ys) == 0:
            return np.empty((0, 2), dtype=np.int64)

        covered = np.zeros((H, W), dtype=bool)
        centers: List[Tuple[int, int]] = []

        def add(cy: int, cx: int) -> None:
            cy = min(max(cy, r), H - r - 1)
            cx = min(max(cx, r), W - r - 1)
            centers.append((cy, cx))
            covered[max(0, cy - r):cy + r + 1, max(0, cx - r):cx + r + 1] = True

        y0, y1, x0, x1 = int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
        for cy in range(y0, y1, stride):
            for cx in range(x0, x1, stride):
                if hole[cy, cx]:
                    add(cy, cx)
        # anything the strided grid skipped still needs a record covering it,
        # so every hole pixel ends up under at least one render window
        missing_ys, missing_xs = np.nonzero(hole & ~covered)
        for my, mx in zip(missing_ys, missing_xs):
            if not covered[my, mx]:
                add(int(my), int(mx))
        return np.array(centers, dtype=np.int64)
