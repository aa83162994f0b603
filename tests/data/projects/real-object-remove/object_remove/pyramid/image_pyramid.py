"""Gaussian/Laplacian image pyramids.

Used by two independent consumers:

* the coarse to fine *search/solve* (fill engines), and
* the *blend* stage (Burt-Adelson Laplacian blending in the multi band blender).

The downsample blur uses a fixed **4 tap separable kernel** shared with the
multi band blender so the pyramid math is consistent everywhere it's used:
weights ``[0.15439, 0.15133, 0.14252, 0.12896]`` applied symmetrically as a
7 tap ``[w3, w2, w1, w0, w1, w2, w3]`` kernel.
"""

from __future__ import annotations

from typing import List

import numpy as np

# Half kernel shared with MultiBandBlender.gaussian_blur.
_HALF = np.array([0.15439, 0.15133, 0.14252, 0.12896], dtype=np.float64)
# Full symmetric 7 tap kernel (renormalised so it sums to 1).
_KERNEL = np.concatenate([_HALF[:0:-1], _HALF])
_KERNEL = (_KERNEL / _KERNEL.sum()).astype(np.float64)


def _convolve_sep(img: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Separable convolution with edge padding. Works on 2D or 3D (H,W[,C])."""
    k = kernel
    r = len(k) // 2
    img_f = img.astype(np.float64)
    if img_f.ndim == 2:
        img_f = img_f[:, :, None]
        squeeze = True
    else:
        squeeze = False
    # horizontal
    padded = np.pad(img_f, ((0, 0), (r, r), (0, 0)), mode="edge")
    horiz_out = np.zeros_like(img_f)
    for i, w in enumerate(k):
        horiz_out += w * padded[:, i:i + img_f.shape[1], :]
    # vertical
    padded = np.pad(horiz_out, ((r, r), (0, 0), (0, 0)), mode="edge")
    result = np.zeros_like(img_f)
    for i, w in enumerate(k):
        result += w * padded[i:i + img_f.shape[0], :, :]
    return result[:, :, 0] if squeeze else result


def gaussian_blur(img: np.ndarray) -> np.ndarray:
    """Blur with the exact binary kernel (no sigma parameter, by design)."""
    return _convolve_sep(img, _KERNEL)


def downsample(img: np.ndarray) -> np.ndarray:
    """Blur then drop every other pixel (Burt-Adelson REDUCE)."""
    return gaussian_blur(img)[::2, ::2]


def upsample(img: np.ndarray, out_shape: tuple[int, int]) -> np.ndarray:
    """Insert zeros then blur (Burt-Adelson EXPAND), resized to ``out_shape``."""
    oh, ow = out_shape
    if img.ndim == 3:
        up = np.zeros((oh, ow, img.shape[2]), dtype=np.float64)
    else:
        up = np.zeros((oh, ow), dtype=np.float64)
    up[::2, ::2] = img[: (oh + 1) // 2, : (ow + 1) // 2]
    # weight *4 compensates the energy lost by zero insertion (2x per axis)
    return _convolve_sep(up, _KERNEL) * 4.0


class ImagePyramid:
    """Gaussian pyramid + on demand Laplacian bands."""

    def __init__(self, image: np.ndarray, levels: int):
        self.levels = max(1, levels)
        self.gaussian: List[np.ndarray] = [image.astype(np.float64)]
        for _ in range(self.levels - 1):
            nxt = downsample(self.gaussian[-1])
            if min(nxt.shape[:2]) < 2:
                break
            self.gaussian.append(nxt)
        self.levels = len(self.gaussian)

    def laplacian(self) -> List[np.ndarray]:
        """Laplacian bands: L[i] = G[i] - EXPAND(G[i+1]); top level is the residual."""
        bands: List[np.ndarray] = []
        for i in range(len(self.gaussian) - 1):
            g = self.gaussian[i]
            up = upsample(self.gaussian[i + 1], g.shape[:2])
            bands.append(g - up)
        bands.append(self.gaussian[-1])
        return bands

    @staticmethod
    def collapse(bands: List[np.ndarray]) -> np.ndarray:
        """Reconstruct an image from Laplacian bands (upscale + add back up)."""
        img = bands[-1]
        for i in range(len(bands) - 2, -1, -1):
            img = bands[i] + upsample(img, bands[i].shape[:2])
        return img
