"""Tier 2 — self similar rigid shift + seam carve.

Pipeline:
  1. ORB = FAST corners + 256 bit BRIEF descriptors + Hamming matching.
  2. A keypoint pair that is visually similar but spatially far gives a
     candidate *rigid translation* (dx, dy) that copies a self similar chunk
     of the image over the hole. Run twice (coarse/refine).
  3. Score candidate offsets by border band SSD (continuity across the hole
     edge) with a validity constraint, then copy the shifted block over the
     hole.
  4. A dynamic programming seam carve cuts the copied block in cleanly,
     computed once for x, then again for y by *transposing the image and
     transposing back*, so the same 1D seam routine handles both axes.

This is the cheap, good enough default path for homogeneous/repetitive
texture (grass, sky, brick, wood). The final feather/blend is left to
Stage E.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from ..imageutil import as_float_rgb, rgb_to_gray
from ..pyramid.image_pyramid import gaussian_blur
from ..runtime.device import resolve_device
# ORB (FAST + BRIEF + Hamming matching) is a standalone, reusable primitive
# in cv/orb.py; re-exported here so existing imports of these names from
# this module keep working.
from ..cv.orb import Keypoint, fast_corners, brief_descriptors, hamming  # noqa: F401


# ==========================================================================
# offset proposal
# ==========================================================================
def _similar_far_offsets(kps: List[Keypoint], hole_bbox,
                         min_offset: int, max_pairs: int = 40
                         ) -> List[Tuple[int, int]]:
    """Propose rigid (oy, ox) offsets from visually similar, spatially far pairs.

    For keypoints near the hole, find the descriptor nearest keypoint that lies
    at least ``min_offset`` away; the vector between them is a candidate shift.
    """
    if len(kps) < 2:
        return []
    y0, x0, y1, x1 = hole_bbox
    cy, cx = (y0 + y1) / 2, (x0 + x1) / 2
    db = np.stack([k.descriptor for k in kps])
    coords = np.array([(k.y, k.x) for k in kps])
    # anchors: keypoints closest to the hole (best boundary continuity)
    d_to_hole = np.hypot(coords[:, 0] - cy, coords[:, 1] - cx)
    anchor_idx = np.argsort(d_to_hole)[:max_pairs]
    offsets: List[Tuple[int, int]] = []
    for ai in anchor_idx:
        dists = hamming(db[ai], db)
        far = np.hypot(coords[:, 0] - coords[ai, 0],
                       coords[:, 1] - coords[ai, 1]) >= min_offset
        cand = np.where(far)[0]
        if cand.size == 0:
            continue
        best = cand[np.argmin(dists[cand])]
        oy = int(coords[best, 0] - coords[ai, 0])
        ox = int(coords[best, 1] - coords[ai, 1])
        offsets.append((oy, ox))
    return offsets


# ==========================================================================
# DP seam carving + transpose trick
# ==========================================================================
def min_cost_seam(energy: np.ndarray) -> np.ndarray:
    """Min cost vertical seam via DP. Returns one column index per row.

    Row y only depends on row y-1, so the DP itself must stay a sequential
    Python loop over rows; but within a row, each column's 3 way choice
    (up-left/up/up-right) is independent of its neighbours' choices and is
    vectorised across the whole row at once (edges padded with +inf so they
    naturally fall back to the 2 candidate case), instead of an inner
    per-column Python loop -- same argmin tie-breaking (favours the
    lower-index candidate) as the scalar version.
    """
    h, w = energy.shape
    cost = energy.astype(np.float64).copy()
    back = np.zeros((h, w), dtype=np.int32)
    xs = np.arange(w)
    for y in range(1, h):
        prev = cost[y - 1]
        padded = np.concatenate(([np.inf], prev, [np.inf]))
        choices = np.stack([padded[0:w], padded[1:w + 1], padded[2:w + 2]])  # (3, w)
        k = np.argmin(choices, axis=0)
        back[y] = np.clip(xs + (k - 1), 0, w - 1)
        cost[y] += choices[k, xs]
    seam = np.zeros(h, dtype=np.int32)
    seam[-1] = int(np.argmin(cost[-1]))
    for y in range(h - 2, -1, -1):
        seam[y] = back[y + 1, seam[y + 1]]
    return seam


def transpose_image(img: np.ndarray) -> np.ndarray:
    if img.ndim == 3:
        return np.transpose(img, (1, 0, 2))
    return img.T


# ==========================================================================
# engine
# ==========================================================================
class SelfSimilarShiftEngine:
    def __init__(self, margin: int = 8, fast_threshold: float = 0.06,
                 brute_step: int = 6, device: Optional[str] = "auto"):
        self.margin = margin
        self.fast_threshold = fast_threshold
        self.brute_step = brute_step
        self.device = device
        # border continuity SSD of the chosen offset; low => good self similarity.
        # Read by the pipeline's AUTO tier gate. inf means no valid offset found.
        self.last_border_score: float = float("inf")

    def fill(self, image: np.ndarray, mask: np.ndarray,
             progress=None, cancel=None) -> np.ndarray:
        img = as_float_rgb(image).astype(np.float64)
        hole = np.ascontiguousarray(mask > 0)
        H, W = hole.shape
        if not hole.any():
            return img.copy()

        ys, xs = np.nonzero(hole)
        bbox = (int(ys.min()), int(xs.min()), int(ys.max()) + 1, int(xs.max()) + 1)
        hole_span = max(bbox[3] - bbox[1], bbox[2] - bbox[0])

        gray = rgb_to_gray(img.astype(np.float32))
        valid = ~hole
        if progress:
            progress(0.1)

        # ORB: corners + descriptors
        corners = fast_corners(gray, valid, self.fast_threshold, border=16)
        kps = brief_descriptors(gray, corners)
        if progress:
            progress(0.4)

        # candidate offsets: coarse then refine pass
        candidates: List[Tuple[int, int]] = []
        candidates += _similar_far_offsets(kps, bbox, min_offset=int(1.5 * hole_span))
        candidates += _similar_far_offsets(kps, bbox, min_offset=max(4, hole_span // 2))
        candidates += self._brute_offsets(hole_span, H, W)
        candidates = list({(int(o[0]), int(o[1])) for o in candidates if o != (0, 0)})

        best, best_score = self._pick_offset(img, hole, bbox, candidates)
        self.last_border_score = best_score
        if best is None:
            return img.copy()  # nothing valid; caller may fall back to another tier
        if progress:
            progress(0.7)

        filled = self._composite_with_seam(img, hole, bbox, best)
        if progress:
            progress(1.0)
        return filled

    def _brute_offsets(self, hole_span, H, W) -> List[Tuple[int, int]]:
        """A coarse grid of translations as a fallback when ORB is sparse."""
        step = max(self.brute_step, hole_span // 2)
        offs = []
        rng = range(-max(hole_span + self.margin, 2 * step),
                    max(hole_span + self.margin, 2 * step) + 1, step)
        for oy in rng:
            for ox in rng:
                if abs(oy) + abs(ox) >= hole_span:
                    offs.append((oy, ox))
        return offs

    def _pick_offset(self, img, hole, bbox, candidates):
        torch_device = resolve_device(self.device)
        if torch_device is not None:
            from .self_similar_shift_gpu import pick_offset_batched
            return pick_offset_batched(img, hole, bbox, candidates, self.margin, torch_device)
        H, W = hole.shape
        y0, x0, y1, x1 = bbox
        by0, bx0 = max(0, y0 - self.margin), max(0, x0 - self.margin)
        by1, bx1 = min(H, y1 + self.margin), min(W, x1 + self.margin)
        band = np.zeros((H, W), dtype=bool)
        band[by0:by1, bx0:bx1] = True
        band &= ~hole  # known context ring around the hole
        band_idx = np.nonzero(band)
        bys, bxs = band_idx
        best_score = np.inf
        best = None
        for (oy, ox) in candidates:
            sy = bys - oy
            sx = bxs - ox
            ok = (sy >= 0) & (sy < H) & (sx >= 0) & (sx < W)
            if ok.mean() < 0.9:
                continue
            syo, sxo, byo, bxo = sy[ok], sx[ok], bys[ok], bxs[ok]
            src_valid = ~hole[syo, sxo]
            if src_valid.mean() < 0.9:
                continue
            d = img[byo, bxo] - img[syo, sxo]
            score = float((d * d).sum(axis=1)[src_valid].mean())
            if not self._hole_source_valid(hole, bbox, oy, ox):
                continue
            if score < best_score:
                best_score = score
                best = (oy, ox)
        return best, best_score

    @staticmethod
    def _hole_source_valid(hole, bbox, oy, ox, min_frac=0.97):
        H, W = hole.shape
        ys, xs = np.nonzero(hole)
        sy, sx = ys - oy, xs - ox
        ok = (sy >= 0) & (sy < H) & (sx >= 0) & (sx < W)
        if ok.mean() < min_frac:
            return False
        src_hole = np.ones(len(ys), dtype=bool)
        src_hole[ok] = hole[sy[ok], sx[ok]]
        return (~src_hole).mean() >= min_frac

    def _composite_with_seam(self, img, hole, bbox, offset):
        H, W = hole.shape
        oy, ox = offset
        out = img.copy()
        copied = self._shift(img, oy, ox)

        y0, x0, y1, x1 = bbox
        ry0, rx0 = max(0, y0 - self.margin), max(0, x0 - self.margin)
        ry1, rx1 = min(H, y1 + self.margin), min(W, x1 + self.margin)

        # per pixel energy = colour difference between original and copied
        diff = ((img - copied) ** 2).sum(axis=2)

        use_copied = hole.copy()
        region = np.zeros((H, W), dtype=bool)
        region[ry0:ry1, rx0:rx1] = True

        # x direction seams: trim left & right margins
        use_copied |= self._side_seam(diff, hole, region, axis="left")
        use_copied |= self._side_seam(diff, hole, region, axis="right")
        # y direction via transpose
        diff_t = transpose_image(diff)
        hole_t = transpose_image(hole)
        region_t = transpose_image(region)
        top = self._side_seam(diff_t, hole_t, region_t, axis="left")
        bot = self._side_seam(diff_t, hole_t, region_t, axis="right")
        use_copied |= transpose_image(top)
        use_copied |= transpose_image(bot)

        use_copied &= region  # never touch pixels outside the working region
        use_copied |= hole
        out[use_copied] = copied[use_copied]
        return out

    @staticmethod
    def _shift(img, oy, ox):
        """Shift image so that out[y,x] = img[y-oy, x-ox] (edge clamped)."""
        H, W = img.shape[:2]
        ys = np.clip(np.arange(H) - oy, 0, H - 1)
        xs = np.clip(np.arange(W) - ox, 0, W - 1)
        return img[np.ix_(ys, xs)]

    def _side_seam(self, diff, hole, region, axis: str) -> np.ndarray:
        """Find a min energy vertical seam in the left/right margin strip.

        Returns a mask of pixels that should take the copied block, bounded by
        the seam (between the hole edge and the region edge).
        """
        H, W = hole.shape
        rys, rxs = np.nonzero(region)
        if rys.size == 0:
            return np.zeros((H, W), dtype=bool)
        ry0, ry1 = rys.min(), rys.max() + 1
        rx0, rx1 = rxs.min(), rxs.max() + 1
        out = np.zeros((H, W), dtype=bool)
        # The DP always spans the same fixed row range (ry0:ry1); only the
        # column bounds change with each row's hole extent. Rows sharing the
        # same (strip_x0, strip_x1) -- typical for straight-ish hole edges --
        # would otherwise resolve the identical DP from scratch once per row
        # just to read off a single seam[yy] value, so cache by those bounds.
        seam_cache: dict = {}
        for y in range(ry0, ry1):
            hx = np.nonzero(hole[y])[0]
            if hx.size == 0:
                continue
            if axis == "left":
                strip_x0, strip_x1 = rx0, hx.min()
            else:
                strip_x0, strip_x1 = hx.max() + 1, rx1
            if strip_x1 <= strip_x0:
                continue
            key = (strip_x0, strip_x1)
            seam = seam_cache.get(key)
            if seam is None:
                strip = diff[ry0:ry1, strip_x0:strip_x1]
                seam = min_cost_seam(strip)
                seam_cache[key] = seam
            yy = y - ry0
            cut = strip_x0 + seam[yy]
            if axis == "left":
                out[y, cut:strip_x1] = True
            else:
                out[y, strip_x0:cut + 1] = True
        return out
