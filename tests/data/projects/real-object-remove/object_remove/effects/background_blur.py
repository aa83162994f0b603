"""Background blur: keeps a selected subject sharp and blurs everything else,
with strength growing smoothly with distance from the subject.

No depth or segmentation model ships with this project, so blur strength is
driven by distance from the selection mask instead of a depth map.
"""

from __future__ import annotations

import numpy as np

from ..cv.distance_transform import distance_transform
from ..cv.symmetric_convolution import gaussian_blur_sigma
from ..imageutil import as_float_rgb


def _spatially_varying_blur(image: np.ndarray, sigma_map: np.ndarray, num_levels: int = 6) -> np.ndarray:
    """Blend between a small set of fixed-sigma blurs, chosen per pixel by
    ``sigma_map`` -- the same masked-lerp-between-precomputed-levels trick
    used for pyramid bands, applied to blur amount instead of pyramid level."""
    max_sigma = float(sigma_map.max())
    if max_sigma <= 0:
        return image.astype(np.float64)
    levels_sigma = np.linspace(0.0, max_sigma, num_levels)
    stacked = np.stack([gaussian_blur_sigma(image, s) for s in levels_sigma], axis=0)

    H, W = sigma_map.shape
    idx_f = np.clip(sigma_map / max_sigma * (num_levels - 1), 0.0, num_levels - 1)
    idx_lo = np.floor(idx_f).astype(np.int64)
    idx_hi = np.clip(idx_lo + 1, 0, num_levels - 1)
    frac = (idx_f - idx_lo)[:, :, None]

    yy = np.arange(H)[:, None]
    xx = np.arange(W)[None, :]
    lo_vals = stacked[idx_lo, yy, xx]
    hi_vals = stacked[idx_hi, yy, xx]
    return lo_vals * (1.0 - frac) + hi_vals * frac


def background_blur(image: np.ndarray, subject_mask: np.ndarray, max_sigma: float = 8.0,
                    falloff_px: float = 40.0, num_levels: int = 6) -> np.ndarray:
    """Blur ``image`` outside ``subject_mask``, strength growing with
    distance from the subject up to ``falloff_px`` (then capped at
    ``max_sigma``)."""
    img = as_float_rgb(image).astype(np.float64)
    subject = subject_mask > 0
    background = ~subject
    if not background.any():
        return img.copy()

    dist = distance_transform(background)
    sigma_map = np.clip(dist / max(1e-6, falloff_px), 0.0, 1.0) * max_sigma
    blurred = _spatially_varying_blur(img, sigma_map, num_levels)

    out = img.copy()
    out[background] = blurred[background]
    return out
