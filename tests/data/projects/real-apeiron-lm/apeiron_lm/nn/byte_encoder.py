# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
ByteEncoder  (v0.0.2)
======================
Maps a raw byte sequence to a single latent vector v ∈ ℝ^C.

Architecture
------------
1.  Byte Embedding   B ∈ ℝ^{256 × C}
2.  Sinusoidal PE    P ∈ ℝ^{L × C}   (dynamic — no max-length limit)
3.  Dropout
4.  Transformer Encoder  (L layers, H heads, FF_dim)
5.  Mean pooling over non-padding positions

Output: v ∈ ℝ^C  (per batch element)

v0.0.2 changes
--------------
* mask convention clarified in docstring: True = padding position.
* Mean pooling now handles the edge case where all positions are masked
  (returns the zero vector rather than NaN).
* Embedding dropout separated from residual dropout for better regularisation.
"""

from __future__ import annotations

import math
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


class ByteEncoder(nn.Module):
    """
    Byte sequence → latent vector encoder.

    Parameters
    ----------
    latent_dim : int
        Output dimensionality C.  Must be even for sinusoidal PE.
    num_layers : int
        Number of Transformer encoder layers.
    num_heads : int
        Number of attention heads.  Must divide latent_dim evenly.
    ff_dim : int
        Feed-forward hidden size inside each encoder layer.
    dropout : float
        Dropout applied to embeddings and inside Transformer layers.
    embed_dropout : float
        Additional dropout applied only to the embedding (before PE addition).
        Defaults to half of ``dropout``.
    """

    def __init__(
        self,
        latent_dim:     int   = 512,
        num_layers:     int   = 4,
        num_heads:      int   = 8,
        ff_dim:         int   = 2048,
        dropout:        float = 0.1,
        embed_dropout:  float = -1.0,
    ) -> None:
        super().__init__()

        if latent_dim % 2 != 0:
            raise ValueError(
                f"latent_dim must be even for sinusoidal PE, got {latent_dim}."
            )
        if latent_dim % num_heads != 0:
            raise ValueError(
                f"latent_dim ({latent_dim}) must be divisible by "
                f"num_heads ({num_heads})."
            )

        self.C = latent_dim
        self.embed_dropout = embed_dropout if embed_dropout >= 0 else dropout / 2

        # ── Byte embedding ─────────────────────────────────────────────────
        self.byte_embed   = nn.Embedding(256, latent_dim)
        self._embed_drop  = nn.Dropout(self.embed_dropout)
        self.res_dropout  = nn.Dropout(dropout)

        # ── Transformer encoder ────────────────────────────────────────────
        encoder_layer = nn.TransformerEncoderLayer(
            d_model         = latent_dim,
            nhead           = num_heads,
            dim_feedforward = ff_dim,
            dropout         = dropout,
            batch_first     = True,
            norm_first      = True,   # Pre-LN for more stable training
        )
        self.encoder = nn.TransformerEncoder(
            encoder_layer,
            num_layers    = num_layers,
            enable_nested_tensor = False,
        )

        self._init_weights()

    def _init_weights(self) -> None:
        nn.init.normal_(self.byte_embed.weight, mean=0.0, std=0.02)

    # ── Sinusoidal PE ─────────────────────────────────────────────────────

    @staticmethod
    def _sinusoidal(
        seq_len: int,
        d_model: int,
        device:  torch.device,
        dtype:   torch.dtype = torch.float32,
    ) -> torch.Tensor:
        """Dynamic sinusoidal PE.  Returns (1, seq_len, d_model)."""
        pe  = torch.zeros(seq_len, d_model, device=device, dtype=dtype)
        pos = torch.arange(seq_len, dtype=dtype, device=device).unsqueeze(1)
        div = torch.exp(
            torch.arange(0, d_model, 2, dtype=dtype, device=device)
            * (-math.log(10_000.0) / d_model)
        )
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        return pe.unsqueeze(0)

    # ── Forward ───────────────────────────────────────────────────────────

    def forward(
        self,
        byte_ids: torch.Tensor,
        mask:     Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        """
        Encode a batch of byte sequences.

        Parameters
        ----------
        byte_ids : torch.Tensor  shape (B, L)  dtype long
            Byte values in [0, 255].
        mask : torch.Tensor or None  shape (B, L)  dtype bool
            Padding mask where **True = padding position** (same convention as
            PyTorch's ``src_key_padding_mask``).  Pass ``None`` if there is no
            padding.

        Returns
        -------
        v : torch.Tensor  shape (B, C)
        """
        B, L = byte_ids.shape

        # ── Embedding + PE ─────────────────────────────────────────────────
        emb = self.byte_embed(byte_ids)               # (B, L, C)
        emb = self._embed_drop(emb)
        pe  = self._sinusoidal(L, self.C, byte_ids.device, emb.dtype)
        x   = self.res_dropout(emb + pe)              # (B, L, C)

        # ── Transformer ────────────────────────────────────────────────────
        x = self.encoder(x, src_key_padding_mask=mask)   # (B, L, C)

        # ── Mean pool (over non-padding positions) ─────────────────────────
        if mask is None:
            v = x.mean(dim=1)
        else:
            # valid: True where NOT padding
            valid = (~mask).float().unsqueeze(-1)     # (B, L, 1)
            n     = valid.sum(dim=1).clamp(min=1.0)   # (B, 1) — avoid div/0
            v     = (x * valid).sum(dim=1) / n         # (B, C)

        return v

    # ── Utilities ──────────────────────────────────────────────────────────

    def extra_repr(self) -> str:
        return (
            f"latent_dim={self.C}, "
            f"num_layers={self.encoder.num_layers}, "
            f"dropout={self.res_dropout.p:.2f}, "
            f"embed_dropout={self.embed_dropout:.2f}"
        )
