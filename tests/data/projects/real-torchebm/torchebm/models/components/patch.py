from __future__ import annotations

from typing import Optional, Tuple

import torch
import torch.nn as nn


def patchify2d(x: torch.Tensor, patch_size: int) -> torch.Tensor:
    """Convert (B,C,H,W) into patch tokens (B, N, C*P*P)."""
    b, c, h, w = x.shape
    p = int(patch_size)
    if h % p != 0 or w % p != 0:
        raise ValueError(f"H,W must be divisible by patch_size={p}, got {(h, w)}")

    gh, gw = h // p, w // p
    x = x.reshape(b, c, gh, p, gw, p)
    x = x.permute(0, 2, 4, 3, 5, 1).contiguous()  # (B, gh, gw, p, p, C)
    return x.view(b, gh * gw, p * p * c)


def unpatchify2d(
    tokens: torch.Tensor,
    patch_size: int,
    *,
    out_channels: int,
    grid_size: Optional[Tuple[int, int]] = None,
) -> torch.Tensor:
    """Convert patch tokens (B,N,P*P*C) back to (B,C,H,W).

    `grid_size` is the `(gh, gw)` token grid; `None` infers a square grid
    (rectangular grids must pass it explicitly).
    """
    b, n, d = tokens.shape
    p = int(patch_size)

    c = int(out_channels)
    if d != p * p * c:
        raise ValueError(f"Token dim {d} != patch_size^2*out_channels ({p*p*c})")

    if grid_size is None:
        grid = int(n ** 0.5)
        if grid * grid != n:
            raise ValueError(
                "Number of tokens is not a perfect square; pass grid_size for "
                "rectangular grids."
            )
        gh = gw = grid
    else:
        gh, gw = (int(s) for s in grid_size)
        if gh * gw != n:
            raise ValueError(f"grid_size {(gh, gw)} does not match {n} tokens")

    x = tokens.view(b, gh, gw, p, p, c)
    x = x.permute(0, 5, 1, 3, 2, 4).contiguous()  # (B,C,gh,p,gw,p)
    return x.view(b, c, gh * p, gw * p)


class ConvPatchEmbed2d(nn.Module):
    """Patch embedding via strided conv.

    This is a lightweight replacement for timm's PatchEmbed.
    """

    def __init__(self, *, in_channels: int, embed_dim: int, patch_size: int):
        super().__init__()
        p = int(patch_size)
        self.patch_size = p
        self.proj = nn.Conv2d(in_channels, embed_dim, kernel_size=p, stride=p, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # (B,C,H,W) -> (B, N, D)
        y = self.proj(x)
        b, d, gh, gw = y.shape
        return y.flatten(2).transpose(1, 2).contiguous()
