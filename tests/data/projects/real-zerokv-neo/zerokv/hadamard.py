"""
Normalized Fast Walsh–Hadamard transform (orthogonal, self-inverse).
Used to spread energy across coordinates before polar / QJL (TurboQuant-style geometry).

Implementation: fully vectorized PyTorch butterfly (each stage is one fused GPU/CPU kernel).
Optional multi-stage Triton FWHT on CUDA: ``ZEROKV_TRITON_FWHT=1`` (see ``zerokv.triton_fwht``).
"""

from __future__ import annotations

import math
import os

import torch

from zerokv.perf import maybe_torch_compile


def is_pow2_positive(n: int) -> bool:
    return n >= 2 and (n & (n - 1)) == 0


def next_power_of_two_at_least_2(n: int) -> int:
    """Smallest power of two >= max(n, 2)."""
    if n <= 1:
        return 2
    if is_pow2_positive(n):
        return n
    p = 2
    while p < n:
        p <<= 1
    return p


# Avoid giant padded polar/QJL when head_dim is unusually large
MAX_FWHT_REST_DIM = 512


def rest_work_dim_and_hadamard(
    dp_orig: int,
    hadamard_rest: bool,
    max_fwht_rest_dim: int = MAX_FWHT_REST_DIM,
) -> tuple[int, bool]:
    """
    Picks padded rest width for FWHT + polar, and whether FWHT runs.
    If padding would exceed max_fwht_rest_dim, falls back to dp_orig (Hadamard only if already pow2).
    """
    if not hadamard_rest or dp_orig <= 0:
        return dp_orig, False
    target = next_power_of_two_at_least_2(dp_orig)
    if target > max_fwht_rest_dim:
        target = dp_orig
    apply = is_pow2_positive(target)
    return target, apply


def _fwht_normalized_last_dim_vec(x: torch.Tensor) -> torch.Tensor:
    """
    Vectorized butterfly FWHT on the last dimension (bit-reversal / Cooley–Tukey style).
    Numerically matches the legacy Python-loop implementation (see tests).
    """
    d = x.shape[-1]
    if not is_pow2_positive(d):
        raise ValueError(f"last dim must be power of 2 and >= 2, got {d}")
    y = x.clone()
    h = 1
    while h < d:
        prefix = y.shape[:-1]
        y = y.reshape(*prefix, d // (2 * h), 2, h)
        a = y[..., 0, :]
        b = y[..., 1, :]
        y = torch.stack([a + b, a - b], dim=-2).reshape(*prefix, d)
        h *= 2
    return y / math.sqrt(d)


_fwht_compiled = maybe_torch_compile(_fwht_normalized_last_dim_vec)


def fwht_normalized_last_dim(x: torch.Tensor) -> torch.Tensor:
    """
    Apply orthogonal Hadamard on the last dimension.
    x: [..., D] with D a power of 2, D >= 2.
    Returns (1/sqrt(D)) H x with same shape (self-inverse).

    Set ``ZEROKV_TRITON_FWHT=1`` for optional Triton path on CUDA (see ``zerokv.triton_fwht``).
    """
    if os.environ.get("ZEROKV_TRITON_FWHT", "").lower() in ("1", "true", "yes") and x.is_cuda:
        try:
            from zerokv.triton_fwht import fwht_triton_normalized_last_dim

            yt = fwht_triton_normalized_last_dim(x)
            if yt is not None:
                return yt
        except Exception:
            pass
    return _fwht_compiled(x)
