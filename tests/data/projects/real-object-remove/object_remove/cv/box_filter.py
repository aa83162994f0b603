"""Uniform box blur: a flat kernel through the same separable runner as
everything else in :mod:`symmetric_convolution`.
"""

from __future__ import annotations

import numpy as np

from .symmetric_convolution import separable_convolve


def box_filter(img: np.ndarray, radius: int) -> np.ndarray:
    if radius <= 0:
        return img.astype(np.float64)
    k = np.full(2 * radius + 1, 1.0 / (2 * radius + 1))
    return separable_convolve(img, k)
