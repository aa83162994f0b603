"""Harris and Shi-Tomasi ("good features to track") corner detection.

Both are the same 2x2 structure tensor (``Sxx``, ``Syy``, ``Sxy``, a
Gaussian-windowed sum of gradient products) scored two different ways:
Harris's ``det(M) - k*trace(M)^2`` and Shi-Tomasi's ``min(eigenvalue)`` --
the smaller eigenvalue of a 2x2 symmetric matrix has a closed form, no
eigendecomposition needed.
"""

from __future__ import annotations

from typing import List, Tuple

import numpy as np

from ..pyramid.image_pyramid import gaussian_blur
from .max_finder import non_max_suppression


def structure_tensor(gray: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    gy, gx = np.gradient(gray.astype(np.float64))
    sxx = gaussian_blur(gx * gx)
    syy = gaussian_blur(gy * gy)
    sxy = gaussian_blur(gx * gy)
    return sxx, syy, sxy


def harris_response(gray: np.ndarray, k: float = 0.04) -> np.ndarray:
    sxx, syy, sxy = structure_tensor(gray)
    det = sxx * syy - sxy * sxy
    trace = sxx + syy
    return det - k * trace * trace


def shi_tomasi_response(gray: np.ndarray) -> np.ndarray:
    """The smaller eigenvalue of the structure tensor at every pixel."""
    sxx, syy, sxy = structure_tensor(gray)
    trace = sxx + syy
    det = sxx * syy - sxy * sxy
    disc = np.sqrt(np.clip(trace * trace - 4.0 * det, 0.0, None))
    return (trace - disc) / 2.0


def harris_corners(gray: np.ndarray, k: float = 0.04, threshold: float = 0.01,
                   nms_radius: int = 3, border: int = 8, max_corners: int = 500
                   ) -> List[Tuple[int, int]]:
    resp = harris_response(gray, k)
    return _select(resp, threshold, nms_radius, border, max_corners)


def good_features_to_track(gray: np.ndarray, threshold: float = 0.01, nms_radius: int = 3,
                           border: int = 8, max_corners: int = 500) -> List[Tuple[int, int]]:
    resp = shi_tomasi_response(gray)
    return _select(resp, threshold, nms_radius, border, max_corners)


def _select(resp: np.ndarray, relative_threshold: float, nms_radius: int,
           border: int, max_corners: int) -> List[Tuple[int, int]]:
    peak = float(resp.max())
    if peak <= 0:
        return []
    return non_max_suppression(resp, radius=nms_radius, threshold=relative_threshold * peak,
                               border=border, max_points=max_corners)
