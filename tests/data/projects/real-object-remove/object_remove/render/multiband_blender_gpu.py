"""Torch mirror of :class:`multiband_blender.MultiBandBlender`.

Pure array math with zero sequential dependency already, so this is a
straight port -- lowest risk, highest value of every GPU component. Numpy in,
numpy out: converts once at the boundary and keeps everything torch resident
for the call, so callers (:class:`PatchCompositor`) never need to change.
"""

from __future__ import annotations

import numpy as np
import torch

from ..pyramid.torch_pyramid import TorchImagePyramid


def _resize(t: torch.Tensor, shape: tuple[int, int]) -> torch.Tensor:
    h, w = shape
    ys = torch.linspace(0, t.shape[0] - 1, h, device=t.device).round().long()
    xs = torch.linspace(0, t.shape[1] - 1, w, device=t.device).round().long()
    return t[ys][:, xs]


class TorchMultiBandBlender:
    def __init__(self, bands: int = 3, device: "torch.device | None" = None):
        self.bands = max(1, bands)
        self.device = device

    def pyramid_blend(self, foreground: np.ndarray, background: np.ndarray,
                      mask: np.ndarray) -> np.ndarray:
        fg = torch.as_tensor(np.asarray(foreground, dtype=np.float32), device=self.device)
        bg = torch.as_tensor(np.asarray(background, dtype=np.float32), device=self.device)
        m = np.asarray(mask, dtype=np.float32)
        if m.ndim == 2:
            m = m[:, :, None]
        m_t = torch.as_tensor(m, device=self.device)

        levels = self.bands
        fg_lap = TorchImagePyramid(fg, levels).laplacian()
        bg_lap = TorchImagePyramid(bg, levels).laplacian()
        mask_gauss = TorchImagePyramid(m_t, levels).gaussian

        blended_bands = []
        for fg_band, bg_band, mask_band in zip(fg_lap, bg_lap, mask_gauss):
            if tuple(mask_band.shape[:2]) != tuple(fg_band.shape[:2]):
                mask_band = _resize(mask_band, tuple(fg_band.shape[:2]))
            blended_bands.append(mask_band * fg_band + (1.0 - mask_band) * bg_band)
        out = TorchImagePyramid.collapse(blended_bands)
        out = torch.clamp(out, 0.0, 1.0)
        return out.detach().cpu().numpy().astype(np.float64)
