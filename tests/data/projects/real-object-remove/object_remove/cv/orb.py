"""ORB: FAST corners + 256 bit BRIEF descriptors + Hamming matching, as a
standalone, reusable detector+descriptor. ``fillengines/self_similar_shift.py``
imports these same functions rather than keeping a duplicate copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

import numpy as np

from ..pyramid.image_pyramid import gaussian_blur

# ==========================================================================
# FAST: 16 point Bresenham circle, contiguous arc test
# ==========================================================================
_FAST_CIRCLE = [(0, -3), (1, -3), (2, -2), (3, -1), (3, 0), (3, 1), (2, 2),
                (1, 3), (0, 3), (-1, 3), (-2, 2), (-3, 1), (-3, 0), (-3, -1),
                (-2, -2), (-1, -3)]


@dataclass
class Keypoint:
    y: int
    x: int
    descriptor: np.ndarray  # (32,) uint8 packed = 256 bits


def fast_corners(gray: np.ndarray, valid: np.ndarray, threshold: float = 0.06,
                 n_contig: int = 9, border: int = 16) -> List[Tuple[int, int]]:
    """FAST 9 corner detector over valid pixels only.

    Both the 4 point compass quick reject and the full 16 point contiguous
    arc test are vectorised over the whole interior at once via shifted
    slices, rather than looping per candidate pixel in Python -- a Python
    loop there would scale with total image area (not hole size), dominating
    runtime on large photos. The arc test still needs a loop to walk the 16
    (+n_contig-1 wrap-around) circle taps and accumulate the longest same
    sign run, but that loop is a fixed ~24 iterations regardless of image
    size, with each iteration a single vectorised array op over every
    interior pixel at once -- identical semantics to the scalar version.
    """
    H, W = gray.shape
    circ = _FAST_CIRCLE
    iy0, iy1 = border, H - border
    ix0, ix1 = border, W - border
    if iy1 <= iy0 or ix1 <= ix0:
        return []

    def shifted(dx: int, dy: int) -> np.ndarray:
        return gray[iy0 + dy:iy1 + dy, ix0 + dx:ix1 + dx]

    center = shifted(0, 0)
    hi = center + threshold
    lo = center - threshold
    reject = np.zeros(center.shape, dtype=np.int32)
    for dx, dy in (circ[0], circ[4], circ[8], circ[12]):
        v = shifted(dx, dy)
        reject += (v > hi) | (v < lo)

    cand = (reject >= 3) & valid[iy0:iy1, ix0:ix1]
    if not cand.any():
        return []

    states = np.empty((len(circ),) + center.shape, dtype=np.int8)
    for i, (dx, dy) in enumerate(circ):
        v = shifted(dx, dy)
        states[i] = np.where(v > hi, 1, np.where(v < lo, -1, 0))

    # circular wrap-around, same as `states + states[:n_contig - 1]` in the
    # scalar version's per-point list
    ext = np.concatenate([states, states[:n_contig - 1]], axis=0)
    found = np.zeros(center.shape, dtype=bool)
    for sgn in (1, -1):
        run = np.zeros(center.shape, dtype=np.int32)
        for i in range(ext.shape[0]):
            run = np.where(ext[i] == sgn, run + 1, 0)
            found |= run >= n_contig

    cys, cxs = np.nonzero(cand & found)
    return [(int(cy) + iy0, int(cx) + ix0) for cy, cx in zip(cys, cxs)]


def _brief_pattern(patch: int = 15, n_bits: int = 256, seed: int = 42) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(-patch, patch + 1, size=(n_bits, 4)).astype(np.int32)


_BRIEF = _brief_pattern()


def brief_descriptors(gray: np.ndarray, pts: List[Tuple[int, int]]) -> List[Keypoint]:
    """256 bit BRIEF on a smoothed image, packed into 32 uint8 bytes.

    Bit computation is vectorised across all points *and* all 256 pattern
    taps at once (one (N, 256) gather + compare + packbits), instead of a
    per point Python loop each doing its own small array ops -- per call
    overhead there dominates runtime for images with many keypoints.
    """
    if not pts:
        return []
    sm = gaussian_blur(gray)
    H, W = sm.shape
    pat = _BRIEF
    pys = np.asarray([p[0] for p in pts], dtype=np.int64)[:, None]
    pxs = np.asarray([p[1] for p in pts], dtype=np.int64)[:, None]
    pax, pay, pbx, pby = pat[:, 0], pat[:, 1], pat[:, 2], pat[:, 3]
    ay = np.clip(pys + pay[None, :], 0, H - 1)
    ax = np.clip(pxs + pax[None, :], 0, W - 1)
    by = np.clip(pys + pby[None, :], 0, H - 1)
    bx = np.clip(pxs + pbx[None, :], 0, W - 1)
    bits = (sm[ay, ax] < sm[by, bx]).astype(np.uint8)  # (N, 256)
    packed = np.packbits(bits, axis=1)  # (N, 32)
    return [Keypoint(y, x, packed[i]) for i, (y, x) in enumerate(pts)]


def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamming distance between packed descriptor ``a`` (32,) and rows of ``b`` (N,32)."""
    return np.bitwise_count(np.bitwise_xor(b, a[None, :])).sum(axis=1)
