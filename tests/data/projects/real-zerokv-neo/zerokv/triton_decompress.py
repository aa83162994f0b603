"""
Optional CUDA decompression via Triton — fused polar + QJL residual reconstruction.

Fuses the hot path of decompression (proto lookup + radius scaling + QJL matmul + combine)
into a single kernel, eliminating intermediate tensor allocations.

Enable with ZEROKV_TRITON_DECOMPRESS=1 and pip install triton on Linux/WSL with CUDA.
Returns None if Triton/CUDA unavailable (caller falls back to PyTorch).
"""

from __future__ import annotations

from typing import Optional

import torch

try:
    import triton
    import triton.language as tl

    @triton.jit
    def _decompress_fused_kernel(
        # Output: [N, D]
        out_ptr,
        # Polar: r_idx [N], ti [N]
        r_idx_ptr,
        ti_ptr,
        # Residual norm [N]
        res_norm_ptr,
        # Sign bits: [N, n_bytes]
        packed_signs_ptr,
        # Proto matrix: [M, D]
        proto_ptr,
        # QJL matrix: [K, D]
        qjl_ptr,
        # Constants
        D: tl.constexpr,
        K: tl.constexpr,
        n_bytes: tl.constexpr,
        r_levels: tl.constexpr,
        lr_min,
        lr_max,
        res_norm_max_val,
    ):
        """Fused polar + QJL decompression. One program per output row."""
        row = tl.program_id(0)

        d_offs = tl.arange(0, D)
        mask = d_offs < D

        # --- Polar reconstruction ---
        r_idx = tl.load(r_idx_ptr + row).to(tl.int32)
        lr_span = lr_max - lr_min
        if lr_span < 1e-6:
            lr_span = 1e-6
        r_recon = tl.exp(lr_min + r_idx.to(tl.float32) / (r_levels - 1) * lr_span)

        ti = tl.load(ti_ptr + row).to(tl.int32)
        proto_row = tl.load(proto_ptr + ti * D + d_offs, mask=mask, other=0.0)
        base = r_recon * proto_row

        # --- QJL residual ---
        # Unpack K sign bits
        signs = tl.zeros([D], dtype=tl.float32)
        k = 0
        while k < K:
            byte_off = row * n_bytes + (k // 8)
            byte_val = tl.load(packed_signs_ptr + byte_off)
            bit = (byte_val >> (k % 8)) & 1
            sign_val = bit.to(tl.float32) * 2.0 - 1.0

            qjl_row = tl.load(qjl_ptr + k * D + d_offs, mask=mask, other=0.0)
            signs = signs + sign_val * qjl_row
            k += 1

        res_norm = tl.load(res_norm_ptr + row).to(tl.float32) / 255.0 * res_norm_max_val
        scale = res_norm / tl.sqrt(K.to(tl.float32))
        residual = signs * scale

        # --- Combine ---
        out = base + residual
        tl.store(out_ptr + row * D + d_offs, out, mask=mask)

    _DECOMPRESS_KERNEL = _decompress_fused_kernel

except ImportError:
    triton = None
    _DECOMPRESS_KERNEL = None


def triton_decompress_available() -> bool:
    return _DECOMPRESS_KERNEL is not None and torch.cuda.is_available()


def decompress_polar_qjl_triton(
    r_idx: torch.Tensor,
    ti: torch.Tensor,
    packed_signs: torch.Tensor,
    res_norm: torch.Tensor,
    proto: torch.Tensor,
    qjl_matrix: torch.Tensor,
    lr_min: float,
    lr_max: float,
    res_norm_max: float,
    r_bits: int,
) -> Optional[torch.Tensor]:
    """Fused Triton decompression. Returns [N, D] or None if unavailable."""
    if not triton_decompress_available() or _DECOMPRESS_KERNEL is None:
        return None

    N = r_idx.shape[0]
    D = proto.shape[1]
    K = qjl_matrix.shape[0]

    if N == 0:
        return torch.empty((0, D), device=r_idx.device, dtype=torch.float32)

    if not r_idx.is_cuda:
        return None

    if D < 2 or (D & (D - 1)) != 0:
        return None

    if D > 128:
        return None

    nb = (K + 7) // 8
    r_levels = 2 ** r_bits

    out = torch.empty(N, D, device=r_idx.device, dtype=torch.float32)

    _DECOMPRESS_KERNEL[(int(N),)](
        out,
        r_idx, ti,
        res_norm,
        packed_signs,
        proto, qjl_matrix,
        D=D, K=K, n_bytes=nb,
        r_levels=r_levels,
        lr_min=lr_min,
        lr_max=lr_max,
        res_norm_max_val=res_norm_max,
    )

    return out
