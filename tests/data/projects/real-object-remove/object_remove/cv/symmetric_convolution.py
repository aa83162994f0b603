"""Generic separable convolution kernel runner, used by box blur, the
sigma-configurable Gaussian blur, and Canny's smoothing pass.

Distinct from ``pyramid/image_pyramid.py``'s ``gaussian_blur``, which is
deliberately a *fixed*, no-parameter kernel shared by every multi scale
consumer in the pipeline; this module is the general, ``sigma``-configurable
version used standalone (frequency separation, Canny, ad hoc smoothing).
"""

from __future__ import annotations

from typing import Optional

import numpy as np


def separable_convolve(img: np.ndarray, kernel_1d: np.ndarray, mode: str = "edge") -> np.ndarray:
    """2D convolution via a symmetric 1D kernel applied horizontally then vertically."""
    k = kernel_1d
    r = len(k) // 2
    img_f = img.astype(np.float64)
    squeeze = img_f.ndim == 2
    if squeeze:
        img_f = img_f[:, :, None]

    padded = np.pad(img_f, ((0, 0), (r, r), (0, 0)), mode=mode)
    horiz = np.zeros_like(img_f)
    for i, w in enumerate(k):
        horiz += w * padded[:, i:i + img_f.shape[1], :]

    padded2 = np.pad(horiz, ((r, r), (0, 0), (0, 0)), mode=mode)
    out = np.zeros_like(img_f)
    for i, w in enumerate(k):
        out += w * padded2[i:i + img_f.shape[0], :, :]

    return out[:, :, 0] if squeeze else out


def gaussian_kernel_1d(sigma: float, radius: Optional[int] = None) -> np.ndarray:
    if radius is None:
        radius = max(1, int(round(3 * sigma)))
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    k = np.exp(-(x * x) / (2.0 * sigma * sigma))
    return k / k.sum()


def gaussian_blur_sigma(img: np.ndarray, sigma: float) -> np.ndarray:
    """Configurable-sigma Gaussian blur (unlike the pyramid's fixed kernel)."""
    if sigma <= 0:
        return img.astype(np.float64)
    return separable_convolve(img, gaussian_kernel_1d(sigma))
