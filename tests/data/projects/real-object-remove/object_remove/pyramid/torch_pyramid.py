"""Torch mirror of :mod:`image_pyramid` — same kernel, same padding, GPU resident.

Imports the numpy module's ``_KERNEL`` constant directly rather than
restating the literals, so the GPU and CPU kernels can never silently drift
apart. Depthwise (per channel, ``groups=C``) ``F.conv2d`` with
``replicate`` padding matches ``np.pad(mode="edge")`` exactly.
"""

from __future__ import annotations

from typing import List, Tuple

import torch
import torch.nn.functional as F

from .image_pyramid import _KERNEL

_KERNEL_CACHE: dict = {}


def _kernel_tensor(device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    key = (device, dtype)
    if key not in _KERNEL_CACHE:
        _KERNEL_CACHE[key] = torch.as_tensor(_KERNEL, device=device, dtype=dtype)
    return _KERNEL_CACHE[key]


def gaussian_blur(img: torch.Tensor) -> torch.Tensor:
    """Blur with the exact binary kernel. Shape ``(H, W)`` or ``(H, W, C)``."""
    squeeze = img.dim() == 2
    x = img.unsqueeze(-1) if squeeze else img
    H, W, C = x.shape
    k = _kernel_tensor(x.device, x.dtype)
    r = k.shape[0] // 2
    chw = x.permute(2, 0, 1).unsqueeze(0)  # (1, C, H, W)

    horiz_w = k.view(1, 1, 1, -1).expand(C, 1, 1, -1).contiguous()
    chw = F.pad(chw, (r, r, 0, 0), mode="replicate")
    chw = F.conv2d(chw, horiz_w, groups=C)

    vert_w = k.view(1, 1, -1, 1).expand(C, 1, -1, 1).contiguous()
    chw = F.pad(chw, (0, 0, r, r), mode="replicate")
    chw = F.conv2d(chw, vert_w, groups=C)

    out = chw.squeeze(0).permute(1, 2, 0)
    return out.squeeze(-1) if squeeze else out


def downsample(img: torch.Tensor) -> torch.Tensor:
    return gaussian_blur(img)[::2, ::2]


def upsample(img: torch.Tensor, out_shape: Tuple[int, int]) -> torch.Tensor:
    oh, ow = out_shape
    shape = (oh, ow, img.shape[2]) if img.dim() == 3 else (oh, ow)
    up = torch.zeros(shape, dtype=img.dtype, device=img.device)
    sh, sw = (oh + 1) // 2, (ow + 1) // 2
    up[::2, ::2] = img[:sh, :sw]
    return gaussian_blur(up) * 4.0


class TorchImagePyramid:
    """Gaussian pyramid + on demand Laplacian bands, torch resident."""

    def __init__(self, image: torch.Tensor, levels: int):
        self.levels = max(1, levels)
        self.gaussian: List[torch.Tensor] = [image]
        for _ in range(self.levels - 1):
            nxt = downsample(self.gaussian[-1])
            if min(nxt.shape[:2]) < 2:
                break
            self.gaussian.append(nxt)
        self.levels = len(self.gaussian)

    def laplacian(self) -> List[torch.Tensor]:
        bands: List[torch.Tensor] = []
        for i in range(len(self.gaussian) - 1):
            g = self.gaussian[i]
            up = upsample(self.gaussian[i + 1], tuple(g.shape[:2]))
            bands.append(g - up)
        bands.append(self.gaussian[-1])
        return bands

    @staticmethod
    def collapse(bands: List[torch.Tensor]) -> torch.Tensor:
        img = bands[-1]
        for i in range(len(bands) - 2, -1, -1):
            img = bands[i] + upsample(img, tuple(bands[i].shape[:2]))
        return img
