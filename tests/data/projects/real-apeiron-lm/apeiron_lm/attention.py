# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
Attention Backends  (v0.0.3.2)
================================
Closes the "no Flash Attention" gap from v0.0.3.

Provides a unified attention interface that auto-selects the best available
backend at runtime:

  1. Flash Attention 2  (if flash_attn is installed)
     - Memory: O(N) instead of O(N²)
     - Speed: 2–4× faster on A100/H100
     - Requires: pip install flash-attn --no-build-isolation

  2. PyTorch SDPA  (F.scaled_dot_product_attention, PyTorch ≥ 2.0)
     - Memory: O(N) with fused kernel on CUDA
     - Speed: 1.5–2× faster than naive
     - Works on any CUDA device without extra install

  3. Naive  (pure PyTorch — always available)
     - Memory: O(N²)
     - Speed: baseline

Usage
-----
The ByteEncoder automatically uses the best available backend via
`get_attention_backend()`.  No user action needed.

To force a specific backend:

>>> from apeiron_lm.attention import set_attention_backend
>>> set_attention_backend("flash")   # or "sdpa" or "naive"

To check which backend is active:

>>> from apeiron_lm.attention import current_attention_backend
>>> print(current_attention_backend())

For custom attention calls:

>>> from apeiron_lm.attention import efficient_attention
>>> out = efficient_attention(q, k, v, mask=None, dropout=0.0, causal=False)
"""

from __future__ import annotations

import logging
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)

# Global backend selection
_BACKEND: str = "auto"   # "auto" | "flash" | "sdpa" | "naive"

# Cache detection result
_FLASH_AVAILABLE: Optional[bool] = None
_SDPA_AVAILABLE:  Optional[bool] = None


def _check_flash() -> bool:
    global _FLASH_AVAILABLE
    if _FLASH_AVAILABLE is None:
        try:
            import flash_attn  # noqa: F401
            _FLASH_AVAILABLE = True
        except ImportError:
            _FLASH_AVAILABLE = False
    return _FLASH_AVAILABLE


def _check_sdpa() -> bool:
    global _SDPA_AVAILABLE
    if _SDPA_AVAILABLE is None:
        _SDPA_AVAILABLE = (
            hasattr(F, "scaled_dot_product_attention")
            and torch.cuda.is_available()
        )
    return _SDPA_AVAILABLE


def set_attention_backend(backend: str) -> None:
    """
    Force a specific attention backend.

    Parameters
    ----------
    backend : str
        "auto"  — select best available (default)
        "flash" — Flash Attention 2 (requires flash_attn package)
        "sdpa"  — PyTorch F.scaled_dot_product_attention
        "naive" — pure PyTorch einsum/matmul (always works)
    """
    global _BACKEND
    valid = {"auto", "flash", "sdpa", "naive"}
    if backend not in valid:
        raise ValueError(f"backend must be one of {valid}, got {backend!r}")
    _BACKEND = backend
    logger.info("Attention backend set to: %s", backend)


def current_attention_backend() -> str:
    """Return the resolved attention backend name."""
    if _BACKEND == "auto":
        if _check_flash():
            return "flash"
        if _check_sdpa():
            return "sdpa"
        return "naive"
    return _BACKEND


def efficient_attention(
    q:        torch.Tensor,   # (B, n_heads, T, head_dim)
    k:        torch.Tensor,   # (B, n_heads, S, head_dim)
    v:        torch.Tensor,   # (B, n_heads, S, head_dim)
    mask:     Optional[torch.Tensor] = None,
    dropout:  float = 0.0,
    causal:   bool  = False,
    scale:    Optional[float] = None,
) -> torch.Tensor:
    """
    Compute multi-head attention with the best available backend.

    Parameters
    ----------
    q, k, v : (B, n_heads, T/S, head_dim)
    mask : (B, 1, T, S) or (B, T, S) or None
        Additive mask (-inf for masked positions).
    dropout : float  — applied during training
    causal : bool    — auto-generate causal mask
    scale : float or None  — attention scale (default: 1/√head_dim)

    Returns
    -------
    (B, n_heads, T, head_dim)
    """
    backend = current_attention_backend()

    if backend == "flash":
        return _flash_attention(q, k, v, mask, dropout, causal, scale)
    if backend == "sdpa":
        return _sdpa_attention(q, k, v, mask, dropout, causal, scale)
    return _naive_attention(q, k, v, mask, dropout, causal, scale)


def _sdpa_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask:    Optional[torch.Tensor],
    dropout: float,
    causal:  bool,
    scale:   Optional[float],
) -> torch.Tensor:
    """PyTorch F.scaled_dot_product_attention (fused CUDA kernel when available)."""
    return F.scaled_dot_product_attention(
        q, k, v,
        attn_mask    = mask,
        dropout_p    = dropout if torch.is_grad_enabled() else 0.0,
        is_causal    = causal and mask is None,
        scale        = scale,
    )


def _naive_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask:    Optional[torch.Tensor],
    dropout: float,
    causal:  bool,
    scale:   Optional[float],
) -> torch.Tensor:
    """Pure PyTorch attention — always available."""
    head_dim = q.shape[-1]
    s = scale or (head_dim ** -0.5)
    attn = (q @ k.transpose(-2, -1)) * s   # (B, h, T, S)

    if causal:
        T, S = attn.shape[-2], attn.shape[-1]
        cm   = torch.ones(T, S, dtype=torch.bool, device=q.device).tril()
        attn = attn.masked_fill(~cm, float("-inf"))

    if mask is not None:
        attn = attn + mask

    attn = F.softmax(attn, dim=-1)

    if dropout > 0 and torch.is_grad_enabled():
        attn = F.dropout(attn, p=dropout)

    return attn @ v


def _flash_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask:    Optional[torch.Tensor],
    dropout: float,
    causal:  bool,
    scale:   Optional[float],
) -> torch.Tensor:
    """Flash Attention 2 backend."""
    try:
        from flash_attn import flash_attn_func, flash_attn_varlen_func  # noqa: F401

        # flash_attn expects (B, T, n_heads, head_dim)
        B, n_heads, T, hd = q.shape
        q_fa = q.transpose(1, 2).contiguous()   # (B, T, h, hd)
        k_fa = k.transpose(1, 2).contiguous()
        v_fa = v.transpose(1, 2).contiguous()

        out_fa = flash_attn_func(
            q_fa, k_fa, v_fa,
            dropout_p = dropout if torch.is_grad_enabled() else 0.0,
            causal    = causal,
            softmax_scale = scale,
        )
        return out_fa.transpose(1, 2)   # back to (B, h, T, hd)

    except Exception as e:
        logger.debug("Flash attention failed (%s), falling back to SDPA", e)
        if _check_sdpa():
            return _sdpa_attention(q, k, v, mask, dropout, causal, scale)
        return _naive_attention(q, k, v, mask, dropout, causal, scale)


# ---------------------------------------------------------------------------
# Attention diagnostics
# ---------------------------------------------------------------------------

def attention_diagnostics() -> dict:
    """
    Return a dict with backend availability info.

    >>> from apeiron_lm.attention import attention_diagnostics
    >>> print(attention_diagnostics())
    """
    return {
        "selected_backend":    current_attention_backend(),
        "flash_attn_available": _check_flash(),
        "sdpa_available":       _check_sdpa(),
        "torch_version":        torch.__version__,
        "cuda_available":       torch.cuda.is_available(),
        "cuda_device_count":    torch.cuda.device_count() if torch.cuda.is_available() else 0,
    }
