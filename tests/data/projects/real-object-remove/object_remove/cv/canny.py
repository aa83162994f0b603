"""Canny edge detection.

Gaussian smooth, Sobel gradients, non maximum suppression *along the
gradient direction* (thinning, distinct from :mod:`max_finder`'s square
window suppression), then hysteresis thresholding. Weak edges are kept only
if 8-connected to a strong edge, found via the same repeated-dilation BFS
technique used by :func:`distance_transform.distance_transform`.
"""

from __future__ import annotations

import numpy as np

from .symmetric_convolution import gaussian_blur_sigma


def _convolve3x3(img: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    H, W = img.shape
    padded = np.pad(img, 1, mode="edge")
    out = np.zeros((H, W), dtype=np.float64)
    for i in range(3):
        for j in range(3):
            out += kernel[i, j] * padded[i:i + H, j:j + W]
    return out


_SOBEL_X = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=np.float64)
_SOBEL_Y = _SOBEL_X.T


def sobel_gradients(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return _convolve3x3(gray, _SOBEL_X), _convolve3x3(gray, _SOBEL_Y)


def _shift2d(arr: np.ndarray, dy: int, dx: int, fill: float = 0.0) -> np.ndarray:
    H, W = arr.shape
    out = np.full_like(arr, fill)
    y_lo, y_hi = max(0, -dy), H - max(0, dy)
    x_lo, x_hi = max(0, -dx), W - max(0, dx)
    if y_lo < y_hi and x_lo < x_hi:
        out[y_lo:y_hi, x_lo:x_hi] = arr[y_lo + dy:y_hi + dy, x_lo + dx:x_hi + dx]
    return out


_DIRECTION_NEIGHBOURS = {
    0: ((0, -1), (0, 1)),    # gradient ~horizontal -> compare left/right
    1: ((-1, 1), (1, -1)),   # gradient ~45 deg
    2: ((-1, 0), (1, 0)),    # gradient ~vertical -> compare up/down
    3: ((-1, -1), (1, 1)),   # gradient ~135 deg
}


def _thin_by_direction(mag: np.ndarray, angle: np.ndarray) -> np.ndarray:
    angle_deg = np.degrees(angle) % 180
    q = np.zeros(angle_deg.shape, dtype=np.int32)
    q[(angle_deg >= 22.5) & (angle_deg < 67.5)] = 1
    q[(angle_deg >= 67.5) & (angle_deg < 112.5)] = 2
    q[(angle_deg >= 112.5) & (angle_deg < 157.5)] = 3

    keep = np.ones(mag.shape, dtype=bool)
    for qi, (o1, o2) in _DIRECTION_NEIGHBOURS.items():
        sel = q == qi
        n1 = _shift2d(mag, *o1)
        n2 = _shift2d(mag, *o2)
        keep &= ~(sel & ((mag < n1) | (mag < n2)))
    return np.where(keep, mag, 0.0)


def _hysteresis(thin: np.ndarray, low: float, high: float) -> np.ndarray:
    strong = thin >= high
    weak = (thin >= low) & ~strong
    connected = strong.copy()
    frontier = strong.copy()
    while frontier.any():
        dil = frontier.copy()
        dil[1:, :] |= frontier[:-1, :]
        dil[:-1, :] |= frontier[1:, :]
        dil[:, 1:] |= frontier[:, :-1]
        dil[:, :-1] |= frontier[:, 1:]
        dil[1:, 1:] |= frontier[:-1, :-1]
        dil[1:, :-1] |= frontier[:-1, 1:]
        dil[:-1, 1:] |= frontier[1:, :-1]
        dil[:-1, :-1] |= frontier[1:, 1:]
        newly = dil & weak & ~connected
        if not newly.any():
            break
        connected |= newly
        frontier = newly
    return connected


def canny(gray: np.ndarray, sigma: float = 1.0, low_threshold_ratio: float = 0.1,
         high_threshold_ratio: float = 0.2) -> np.ndarray:
    """Boolean edge mask."""
    smoothed = gaussian_blur_sigma(gray, sigma)
    gx, gy = sobel_gradients(smoothed)
    mag = np.hypot(gx, gy)
    angle = np.arctan2(gy, gx)
    thin = _thin_by_direction(mag, angle)
    peak = float(thin.max())
    if peak <= 0:
        return np.zeros(gray.shape, dtype=bool)
    return _hysteresis(thin, peak * low_threshold_ratio, peak * high_threshold_ratio)
