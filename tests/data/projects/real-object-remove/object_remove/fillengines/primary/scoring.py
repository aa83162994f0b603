"""Patch distance scoring: sum of squared differences over a square window."""

from __future__ import annotations

from typing import Optional

import numpy as np


def _window(image: np.ndarray, y: int, x: int, r: int) -> np.ndarray:
    return image[y - r:y + r + 1, x - r:x + r + 1]


def patch_sqr_distance(image: np.ndarray, ty: int, tx: int,
                       sy: int, sx: int, radius: int) -> float:
    """SSD between the target patch and one candidate source patch."""
    d = (_window(image, ty, tx, radius) - _window(image, sy, sx, radius)).ravel()
    return float(d @ d)


def patch_sqr_distance_batch(image: np.ndarray, ty: int, tx: int,
                             source_coords: np.ndarray, radius: int,
                             target_valid: Optional[np.ndarray] = None) -> np.ndarray:
    """SSD between the target patch and every candidate in ``source_coords``
    at once (a gather + reduce instead of a per-candidate Python loop).

    ``target_valid`` (shape ``(2r+1, 2r+1)``), when given, restricts the SSD
    to target-window pixels that are already known -- a target patch near a
    hole boundary can still overlap not-yet-solved pixels, and comparing
    against those would score every candidate against an arbitrary
    placeholder value instead of real content.
    """
    if len(source_coords) == 0:
        return np.empty(0, dtype=np.float64)
    r = radius
    H, W = image.shape[:2]
    target = _window(image, ty, tx, r)
    off_y, off_x = np.meshgrid(np.arange(-r, r + 1), np.arange(-r, r + 1), indexing="ij")
    ys = np.clip(source_coords[:, 0][:, None, None] + off_y[None, :, :], 0, H - 1)
    xs = np.clip(source_coords[:, 1][:, None, None] + off_x[None, :, :], 0, W - 1)
    patches = image[ys, xs]
    diff = patches - target[None]
    sq = np.einsum("nijk,nijk->nij", diff, diff)
    if target_valid is None:
        return sq.sum(axis=(1, 2))
    valid_count = max(1, int(target_valid.sum()))
    return (sq * target_valid[None]).sum(axis=(1, 2)) / valid_count
