"""
Optional CUDA FWHT via Triton — FUSED all-stage kernel.

Single kernel launch performs all log2(D) butterfly stages in shared memory,
eliminating global memory round-trips between stages.

Enable with ZEROKV_TRITON_FWHT=1 and pip install triton on Linux/WSL with CUDA.
Returns None if Triton/CUDA unavailable (caller falls back to PyTorch).
"""

from __future__ import annotations

import math
from typing import Optional

import torch

try:
    import triton
    import triton.language as tl

    @triton.jit
    def _fwht_fused_kernel(x_ptr, y_ptr, D: tl.constexpr):
        """Fused FWHT: all butterfly stages in registers, one row per program."""
        row = tl.program_id(0)
        offs = tl.arange(0, D)
        mask = offs < D

        x = tl.load(x_ptr + row * D + offs, mask=mask, other=0.0)

        h = 1
        while h < D:
            is_lo = (offs % (2 * h)) < h
            partner = tl.where(is_lo, offs + h, offs - h)
            xp = tl.load(x_ptr + row * D + partner, mask=mask & (partner < D), other=0.0)
            x = tl.where(is_lo, x + xp, xp - x)
            h *= 2

        x = x / tl.sqrt(D.to(tl.float32))
        tl.store(y_ptr + row * D + offs, x, mask=mask)

    _FUSED_KERNEL = _fwht_fused_kernel
except ImportError:
    triton = None
    _FUSED_KERNEL = None


def triton_fwht_available() -> bool:
    return _FUSED_KERNEL is not None and torch.cuda.is_available()


def fwht_triton_normalized_last_dim(x: torch.Tensor) -> Optional[torch.Tensor]:
    if not triton_fwht_available() or _FUSED_KERNEL is None:
        return None
    d = x.shape[-1]
    if d < 2 or (d & (d - 1)) != 0:
        return None
    if not x.is_cuda:
        return None

    orig = x.shape
    x_c = x.contiguous()
    x2 = x_c.reshape(-1, d).to(torch.float32)
    m, D = x2.shape
    if m == 0:
        return None

    out = torch.empty_like(x2)
    _FUSED_KERNEL[(int(m),)](x2, out, D=D)

    return out.reshape(orig).to(x.dtype)
