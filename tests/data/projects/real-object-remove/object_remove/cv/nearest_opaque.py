"""Fills an unknown/transparent pixel with (an average of) its nearest
opaque neighbours.

A trivial, near instant fallback fill distinct from any patch based engine
-- useful as a last resort/preview-frame filler while a slower fill engine
is still running. Propagates outward one ring at a time (8-connected),
fully vectorised per round.
"""

from __future__ import annotations

import numpy as np


def _shift(arr: np.ndarray, dy: int, dx: int) -> np.ndarray:
    out = np.zeros_like(arr)
    H, W = arr.shape[:2]
    y_lo, y_hi = max(0, -dy), H - max(0, dy)
    x_lo, x_hi = max(0, -dx), W - max(0, dx)
    if y_lo < y_hi and x_lo < x_hi:
        out[y_lo:y_hi, x_lo:x_hi] = arr[y_lo + dy:y_hi + dy, x_lo + dx:x_hi + dx]
    return out


_NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


def fill_nearest_opaque(image: np.ndarray, opaque: np.ndarray) -> np.ndarray:
    """Fill every pixel where ``opaque`` is False with the (ring-averaged)
    colour of its nearest True (opaque) pixels."""
    out = image.astype(np.float64).copy()
    known = opaque.copy()
    remaining = ~known
    frontier = known.copy()
    while remaining.any():
        acc = np.zeros_like(out)
        wsum = np.zeros(image.shape[:2], dtype=np.float64)
        for dy, dx in _NEIGHBOURS:
            shifted_frontier = _shift(frontier, dy, dx)
            shifted_val = _shift(out, dy, dx)
            acc += np.where(shifted_frontier[..., None], shifted_val, 0.0)
            wsum += shifted_frontier
        newly = (wsum > 0) & remaining
        if not newly.any():
            break
        out[newly] = acc[newly] / wsum[newly, None]
        known |= newly
        remaining &= ~newly
        frontier = newly
    return out
