# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
UnifiedLatentReasoner
=====================
Maps a latent vector v_final ∈ ℝ^C to a complete byte sequence in parallel.

Pipeline
--------
4.1  Length Prediction
     N_pred = round( softplus( f_L(v_final) ) )  ∈ [1, ∞)

4.2  Causal Depth-wise 1-D Convolution  [NEW in v0.0.2]
     A depth-wise causal conv injects local context into the hidden states
     before the byte projection, addressing the independence problem that
     caused repetitive byte patterns on long outputs.

         h_n    = v_final + PE_n              # broadcast expand
         h_conv = CausalDWConv1D(h)           # local context
         logits = h_conv @ W_Bᵀ  ∈ ℝ^{N×256}

All N positions are produced **in parallel** in a single forward pass.

v0.0.3: Optionally replaced/augmented with Fourier global context.
See apeiron_lm.nn.fourier.GlobalContextBlock for full documentation.

Computational cost:
  conv_only  : O(N · C · k)
  fourier    : O(N · log(N) · C)
  parallel   : O(N · log(N) · C) + O(N · C · k)
"""

from __future__ import annotations

import math
from typing import Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalDWConv1D(nn.Module):
    """
    Causal depth-wise 1-D convolution for injecting local context.

    Applies a causal (past-only) depth-wise conv over the position axis,
    so each position h_n can attend to its left neighbours before the byte
    projection.  This addresses the local-coherence limitation of the
    parallel generator without adding autoregressive complexity.

    Parameters
    ----------
    channels : int
        Number of channels (= latent_dim C).
    kernel_size : int
        Number of left-context positions to look at.  Default 7 is a good
        balance between coherence and speed.
    """

    def __init__(self, channels: int, kernel_size: int = 7) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        # depth-wise conv: groups=channels → each channel handled independently
        self.conv = nn.Conv1d(
            in_channels  = channels,
            out_channels = channels,
            kernel_size  = kernel_size,
            groups       = channels,
            bias         = True,
        )
        # Layer norm stabilises the residual branch
        self.norm = nn.LayerNorm(channels)
        nn.init.zeros_(self.conv.weight)  # start as identity (zero conv trick)
        nn.init.zeros_(self.conv.bias)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """
        Parameters
        ----------
        h : (B, N, C)

        Returns
        -------
        (B, N, C)   same shape, local context injected via residual
        """
        # Causal padding: pad (kernel_size-1) zeros on the LEFT
        pad = self.kernel_size - 1
        x   = h.transpose(1, 2)                           # (B, C, N)
        x   = F.pad(x, (pad, 0))                          # (B, C, N+pad)
        x   = self.conv(x)                                # (B, C, N)
        x   = x.transpose(1, 2)                           # (B, N, C)
        return self.norm(h + x)                           # residual + LN


class UnifiedLatentReasoner(nn.Module):
    """
    Parallel byte-sequence generator with optional local-context convolution.

    Parameters
    ----------
    latent_dim : int
        Input dimensionality C.  Must be even for sinusoidal PE.
    n_max : int
        Default output window used during **training** (fixed-size logits).
        Inference is unbounded; this only affects the training logit tensor size.
    len_hidden : int
        Hidden width of the length-prediction MLP.
    conv_kernel : int
        Kernel size for the causal depth-wise conv post-processor.
        Set to 0 to disable (equivalent to v0.0.1 behaviour).
    """

    def __init__(
        self,
        latent_dim:           int  = 512,
        n_max:                int  = 512,
        len_hidden:           int  = 128,
        conv_kernel:          int  = 7,
        fourier_mode:         str  = "none",
        fourier_n_modes:      int  = 64,
        fourier_mix_channels: bool = False,
    ) -> None:
        super().__init__()

        if latent_dim % 2 != 0:
            raise ValueError(
                f"latent_dim must be even for sinusoidal PE, got {latent_dim}."
            )
        _valid = {"none", "replace", "parallel", "adaptive", "multiscale"}
        if fourier_mode not in _valid:
            raise ValueError(
                f"fourier_mode must be one of {_valid}, got {fourier_mode!r}."
            )

        self.n_max             = n_max
        self.C                 = latent_dim
        self.conv_kernel       = conv_kernel
        self.fourier_mode      = fourier_mode
        self._mix_channels     = fourier_mix_channels

        # ── Length predictor ───────────────────────────────────────────────
        self.length_mlp = nn.Sequential(
            nn.Linear(latent_dim, len_hidden),
            nn.GELU(),
            nn.Linear(len_hidden, len_hidden // 2),
            nn.GELU(),
            nn.Linear(len_hidden // 2, 1),
        )

        # ── Context block: Fourier / DWConv / parallel ────────────────────
        self.causal_conv: Optional[CausalDWConv1D]
        self.global_ctx:  Optional[nn.Module]

        if fourier_mode == "none":
            # v0.0.2 behaviour: CausalDWConv1D only
            self.causal_conv = CausalDWConv1D(latent_dim, kernel_size=conv_kernel) if conv_kernel > 0 else None
            self.global_ctx  = None
        else:
            # v0.0.3: Fourier-based global context block
            from apeiron_lm.nn.fourier import GlobalContextBlock
            self.causal_conv = None   # GlobalContextBlock subsumes DWConv when parallel
            self.global_ctx  = GlobalContextBlock(
                channels       = latent_dim,
                conv_kernel    = conv_kernel if fourier_mode == "parallel" else 0,
                n_modes        = fourier_n_modes,
                fourier_mode   = fourier_mode,
                mix_channels   = getattr(self, '_mix_channels', False),
            )

        # ── Byte projection ────────────────────────────────────────────────
        self.byte_proj = nn.Linear(latent_dim, 256, bias=False)

        self._init_weights()

    def _init_weights(self) -> None:
        for m in self.length_mlp.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
        # Initialise length_mlp final layer bias so softplus(raw) ≈ 128
        final_bias = self.length_mlp[-1].bias
        if final_bias is not None:
            nn.init.constant_(final_bias, math.log(math.exp(128) - 1))

        nn.init.xavier_uniform_(self.byte_proj.weight)

    # ── Positional encoding ────────────────────────────────────────────────

    @staticmethod
    def _sinusoidal(
        seq_len: int,
        d_model: int,
        device:  torch.device,
        dtype:   torch.dtype = torch.float32,
    ) -> torch.Tensor:
        """Dynamic sinusoidal PE. Returns (1, seq_len, d_model)."""
        pe  = torch.zeros(seq_len, d_model, device=device, dtype=dtype)
        pos = torch.arange(seq_len, dtype=dtype, device=device).unsqueeze(1)
        div = torch.exp(
            torch.arange(0, d_model, 2, dtype=dtype, device=device)
            * (-math.log(10_000.0) / d_model)
        )
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        return pe.unsqueeze(0)   # (1, seq_len, d_model)

    # ── Length prediction ──────────────────────────────────────────────────

    def predict_length(
        self,
        v: torch.Tensor,
        min_length: int = 1,
        max_length: Optional[int] = None,
    ) -> torch.Tensor:
        """
        Predict output byte-sequence length.

        Parameters
        ----------
        v : torch.Tensor  shape (B, C)
        min_length : int
        max_length : int or None

        Returns
        -------
        n_pred : torch.Tensor  shape (B,)  dtype long
        """
        raw    = self.length_mlp(v).squeeze(-1)           # (B,)
        n_cont = F.softplus(raw)
        n_pred = n_cont.round().long().clamp(min=min_length)
        if max_length is not None:
            n_pred = n_pred.clamp(max=max_length)
        return n_pred

    def predict_length_continuous(self, v: torch.Tensor) -> torch.Tensor:
        """
        Return the *continuous* (un-rounded) length prediction for training.

        Parameters
        ----------
        v : torch.Tensor  shape (B, C)

        Returns
        -------
        n_continuous : torch.Tensor  shape (B,)  dtype float
        """
        raw = self.length_mlp(v).squeeze(-1)
        return F.softplus(raw)

    # ── Main forward ──────────────────────────────────────────────────────

    def forward(
        self,
        v:     torch.Tensor,
        n_out: Optional[int] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        Generate byte logits for a batch.

        Parameters
        ----------
        v : torch.Tensor  shape (B, C)
        n_out : int or None
            Number of output positions.  Pass N_max for training,
            ``None`` for inference (uses predicted max length).

        Returns
        -------
        logits : torch.Tensor  shape (B, N, 256)
        n_pred : torch.Tensor  shape (B,)  dtype long
        """
        n_pred = self.predict_length(v)
        N      = n_out if n_out is not None else int(n_pred.max().item())
        N      = max(N, 1)

        P  = self._sinusoidal(N, self.C, v.device, v.dtype)  # (1, N, C)
        h  = v.unsqueeze(1) + P                              # (B, N, C)

        # Apply context block (Fourier / DWConv / parallel)
        if self.global_ctx is not None:
            h = self.global_ctx(h)                           # (B, N, C)
        elif self.causal_conv is not None:
            h = self.causal_conv(h)                          # (B, N, C)

        logits = self.byte_proj(h)                           # (B, N, 256)
        return logits, n_pred

    # ── Greedy decode ──────────────────────────────────────────────────────

    @torch.no_grad()
    def decode(
        self,
        v:            torch.Tensor,
        max_generate: Optional[int] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        Greedy argmax decoding (inference only).

        Parameters
        ----------
        v : torch.Tensor  shape (B, C)
        max_generate : int or None

        Returns
        -------
        byte_ids : torch.Tensor  shape (B, N)  dtype long
        n_pred   : torch.Tensor  shape (B,)    dtype long
        """
        logits, n_pred = self.forward(v, n_out=max_generate)
        byte_ids       = logits.argmax(dim=-1)
        return byte_ids, n_pred

    # ── Top-k / Top-p sampling ─────────────────────────────────────────────

    @torch.no_grad()
    def sample(
        self,
        v:            torch.Tensor,
        temperature:  float = 1.0,
        top_k:        Optional[int] = None,
        top_p:        Optional[float] = None,
        max_generate: Optional[int] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        Stochastic sampling with optional top-k / nucleus (top-p) filtering.

        Parameters
        ----------
        v : torch.Tensor  shape (B, C)
        temperature : float
        top_k : int or None
        top_p : float or None
        max_generate : int or None

        Returns
        -------
        byte_ids : torch.Tensor  shape (B, N)
        n_pred   : torch.Tensor  shape (B,)
        """
        logits, n_pred = self.forward(v, n_out=max_generate)

        B, N, V     = logits.shape
        logits_flat = logits.reshape(B * N, V) / max(temperature, 1e-8)

        if top_k is not None:
            top_k = min(top_k, V)
            thresh = logits_flat.topk(top_k, dim=-1).values[:, -1:]
            logits_flat = logits_flat.masked_fill(logits_flat < thresh, float("-inf"))

        if top_p is not None:
            sorted_logits, sorted_idx = torch.sort(logits_flat, dim=-1, descending=True)
            cumulative_probs = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
            sorted_to_remove = (cumulative_probs - F.softmax(sorted_logits, dim=-1)) > top_p
            sorted_to_remove[:, 0] = False   # always keep top token
            indices_to_remove = sorted_to_remove.scatter(1, sorted_idx, sorted_to_remove)
            logits_flat = logits_flat.masked_fill(indices_to_remove, float("-inf"))

        probs    = F.softmax(logits_flat, dim=-1)
        byte_ids = torch.multinomial(probs, num_samples=1).view(B, N)
        return byte_ids, n_pred

    # ── Utilities ──────────────────────────────────────────────────────────

    def extra_repr(self) -> str:
        return (
            f"latent_dim={self.C}, "
            f"n_max={self.n_max}, "
            f"len_hidden={self.length_mlp[0].out_features}, "
            f"conv_kernel={self.conv_kernel}, "
            f"fourier_mode={self.fourier_mode!r}"
        )
