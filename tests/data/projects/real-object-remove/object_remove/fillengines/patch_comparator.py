"""Tier 1 — legacy CPU segment aware patch comparator.

Patch distance is SSD style but computed *within a segmentation zone
context*: candidates are penalised when they don't belong to the same segment
as the query, and validity is checked by scanning a per pixel byte mask rather
than a statistical flatness heuristic.

The engine on top is a greedy onion peel exemplar fill: cheap, correct on small
holes, and the natural CPU fallback tier for low end devices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from ..imageutil import as_float_rgb, rgb_to_gray
from ..runtime.device import resolve_device


class SegmentValidityMap:
    """Validity + segment zone bookkeeping alongside the color image."""

    def __init__(self, image: np.ndarray, valid: np.ndarray,
                 segments: Optional[np.ndarray] = None):
        self.image = image
        self.valid = valid  # bool (H,W): True = usable source pixel
        if segments is None:
            segments = self._quantize_segments(image)
        self.segments = segments

    @staticmethod
    def _quantize_segments(image: np.ndarray, n_zones: int = 6) -> np.ndarray:
        """Cheap segmentation zones: coarse luma quantisation.

        Stands in for a real segmentation map; good enough to make the
        same segment gate meaningful (grass vs sky vs wall).
        """
        luma = rgb_to_gray(image)
        return np.clip((luma * n_zones).astype(np.int32), 0, n_zones - 1)

    def is_rect_opaque_safe(self, x: int, y: int, w: int, h: int) -> bool:
        """Bounds check then scan the byte mask; false on the first invalid pixel."""
        H, W = self.valid.shape
        if x < 0 or y < 0 or x + w > W or y + h > H:
            return False
        return bool(self.valid[y:y + h, x:x + w].all())

    def is_same_segment(self, y0: int, x0: int, y1: int, x1: int) -> bool:
        return self.segments[y0, x0] == self.segments[y1, x1]


@dataclass
class PatchSegmentationComparator:
    patch_radius: int = 3
    segment_penalty: float = 0.25  # added to distance when segments differ

    def patch_sqr_distance(self, seg: SegmentValidityMap,
                           target_y: int, target_x: int,
                           source_y: int, source_x: int,
                           target_valid: np.ndarray) -> float:
        """Segment aware masked SSD between a target and a source patch center.

        Only pixels valid in *both* the target neighbourhood (``target_valid``)
        and the source are compared, matching the byte mask validity discipline.
        """
        r = self.patch_radius
        H, W = seg.valid.shape
        img = seg.image
        acc = 0.0
        valid_pair_count = 0
        for dy in range(-r, r + 1):
            ty, sy = target_y + dy, source_y + dy
            if not (0 <= ty < H and 0 <= sy < H):
                continue
            for dx in range(-r, r + 1):
                tx, sx = target_x + dx, source_x + dx
                if not (0 <= tx < W and 0 <= sx < W):
                    continue
                if not target_valid[ty, tx] or not seg.valid[sy, sx]:
                    continue
                diff = img[ty, tx] - img[sy, sx]
                acc += float(diff.dot(diff))
                valid_pair_count += 1
        if valid_pair_count == 0:
            return float("inf")
        dist = acc / valid_pair_count
        if not seg.is_same_segment(target_y, target_x, source_y, source_x):
            dist += self.segment_penalty
        return dist


class SegmentAwarePatchFillEngine:
    """Greedy onion peel exemplar fill using the comparator (tier 1)."""

    def __init__(self, patch_radius: int = 3, search_stride: int = 2,
                 max_sources: int = 500, seed: int = 7, device: Optional[str] = "auto"):
        self.comparator = PatchSegmentationComparator(patch_radius=patch_radius)
        self.patch_radius = patch_radius
        self.search_stride = search_stride
        self.max_sources = max_sources
        self.seed = seed
        self.device = device

    def fill(self, image: np.ndarray, hole: np.ndarray,
             progress=None, cancel=None) -> np.ndarray:
        torch_device = resolve_device(self.device)
        if torch_device is not None:
            from .patch_comparator_gpu import TorchSegmentAwarePatchFillEngine
            return TorchSegmentAwarePatchFillEngine(
                self.patch_radius, self.search_stride, self.max_sources,
                self.comparator.segment_penalty, self.seed, torch_device
            ).fill(image, hole, progress=progress, cancel=cancel)
        img = as_float_rgb(image).astype(np.float64).copy()
        hole = np.ascontiguousarray(hole > 0)
        H, W = hole.shape
        valid = ~hole
        seg = SegmentValidityMap(img, valid.copy())

        src_ys, src_xs = np.nonzero(valid)
        src_pts = np.stack([src_ys, src_xs], axis=1)
        src_pts = src_pts[::max(1, self.search_stride)]
        if len(src_pts) > self.max_sources:
            rng = np.random.default_rng(self.seed)
            sel = rng.choice(len(src_pts), self.max_sources, replace=False)
            src_pts = src_pts[sel]

        remaining = int(hole.sum())
        total = max(1, remaining)
        filled_valid = valid.copy()  # grows as we fill

        while remaining > 0:
            if cancel is not None and cancel():
                break
            border = self._boundary_pixels(hole)
            if border.size == 0:
                break
            for (target_y, target_x) in border:
                if not hole[target_y, target_x]:
                    continue
                best = self._best_source(seg, filled_valid, target_y, target_x, src_pts)
                if best is None:
                    img[target_y, target_x] = self._local_mean(img, filled_valid, target_y, target_x)
                else:
                    source_y, source_x = best
                    img[target_y, target_x] = img[source_y, source_x]
                hole[target_y, target_x] = False
                filled_valid[target_y, target_x] = True
                seg.valid[target_y, target_x] = True
                remaining -= 1
                if progress is not None and remaining % 64 == 0:
                    progress((total - remaining) / total)
        if progress is not None:
            progress(1.0)
        return img

    def _best_source(self, seg, target_valid, target_y, target_x, src_pts):
        best_d = float("inf")
        best = None
        for (source_y, source_x) in src_pts:
            d = self.comparator.patch_sqr_distance(
                seg, target_y, target_x, source_y, source_x, target_valid)
            if d < best_d:
                best_d = d
                best = (int(source_y), int(source_x))
        return best

    @staticmethod
    def _boundary_pixels(hole: np.ndarray) -> np.ndarray:
        """Hole pixels adjacent to a filled pixel (the fill front)."""
        h = hole
        front = np.zeros_like(h)
        front[1:, :] |= h[1:, :] & ~h[:-1, :]
        front[:-1, :] |= h[:-1, :] & ~h[1:, :]
        front[:, 1:] |= h[:, 1:] & ~h[:, :-1]
        front[:, :-1] |= h[:, :-1] & ~h[:, 1:]
        ys, xs = np.nonzero(front)
        return np.stack([ys, xs], axis=1)

    @staticmethod
    def _local_mean(img, valid, target_y, target_x, r=2):
        H, W = valid.shape
        y0, y1 = max(0, target_y - r), min(H, target_y + r + 1)
        x0, x1 = max(0, target_x - r), min(W, target_x + r + 1)
        block = img[y0:y1, x0:x1]
        vmask = valid[y0:y1, x0:x1]
        if vmask.any():
            return block[vmask].mean(axis=0)
        return img[target_y, target_x]
