"""
kolmgformers/tasa.py  v2.0.7
===========================
Timestep-Adaptive Sparse Attention (TASA) for Masked Diffusion Language Models.

Paper: "TASA: Timestep-Adaptive Sparse Attention for Masked Diffusion Language Models"
       OMGFormers Architecture Family — Research Preview v2.0.7

Key idea:
  Early diffusion steps (high t, many MASKs) require global attention to establish
  coarse structure. Late steps (low t, mostly revealed) need only local attention.
  TASA exploits the generation timestep t_emb — already present in OMGFormers'
  AdaLN-Zero — to dynamically modulate attention sparsity. No weight changes needed.

Features:
  - TASAGatingNetwork: lightweight 2-layer MLP that predicts sparsity level s ∈ (0,1)
    conditioned on t_emb. Zero extra embedding parameters (reuses AdaLN t_emb).
  - apply_tasa_mask(): additive log-mask applied to raw attention logits before softmax.
  - Local window guarantee (default w=64): each token always attends to ±w/2 neighbors,
    preventing representation collapse at maximum sparsity.
  - Compatible with GQA, DS-PDLM (per-stream), MoE, attn_bias, and Flash Attention.

Theoretical FLOP reduction: ~40–60% attention compute → ~1.3×–1.55× total speedup.
Combined with DI (2–3×) and MFS (1.5–1.7×): projected 5–6× total speedup.

Bug fixes vs naive top-k attention:
  BUG FIX #T1 — top-k with k=0 (s=1.0 at t=0) would zero out ALL logits and
                 produce NaN after softmax. Local window guarantee prevents this.
  BUG FIX #T2 — torch.topk on logits + additive -inf mask: we operate on float32
                 logits BEFORE any softmax, avoiding in-place modification of the
                 computation graph (would break autograd).
  BUG FIX #T3 — When T_seq == 1 (single-token forward pass), top-k degenerates.
                 Early exit returns unmodified logits.
  BUG FIX #T4 — GatingNetwork sigmoid output can saturate to exactly 0 or 1 on
                 extreme t_emb values, causing k=T or k=0. Clamp to (eps, 1-eps).
"""

from __future__ import annotations

import math
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


__all__ = [
    "TASAGatingNetwork",
    "TASAConfig",
    "apply_tasa_mask",
]


class TASAConfig:
    """
    Configuration for TASA (Timestep-Adaptive Sparse Attention).

    Args:
        enabled:          Master switch. False = standard dense attention.
        local_window:     w — hard minimum window: each token always attends to
                          ±(w//2) neighbours regardless of sparsity. Default 64.
                          Must be ≥ 2.
        gamma:            Exponent for default prior sparsity schedule
                          s_prior(t) = 1 - (t/T)^gamma. Default 2 (quadratic).
        ds_stream_sep:    If True, separate GatingNetworks for U-Stream and G-Stream
                          in DS-PDLM mode. If False, share weights. Default True.
        inference_only:   If True, TASA mask is only applied at eval time (no
                          sparsity during training — avoids distribution shift).
                          Default False (train + eval).
    """

    def __init__(
        self,
        enabled:       bool  = False,
        local_window:  int   = 64,
        gamma:         float = 2.0,
        ds_stream_sep: bool  = True,
        inference_only: bool = False,
    ):
        self.enabled        = enabled
        self.local_window   = max(2, local_window)
        self.gamma          = gamma
        self.ds_stream_sep  = ds_stream_sep
        self.inference_only = inference_only


class TASAGatingNetwork(nn.Module):
    """
    Lightweight 2-layer MLP that predicts sparsity level s ∈ (0, 1)
    conditioned on the timestep embedding t_emb.

    Architecture:
        G_φ(t_emb) = W_2 · ReLU(W_1 · t_emb + b_1) + b_2
        s = sigmoid(G_φ(t_emb))   ∈ (0, 1)

    Hidden size = C // 4  (paper recommendation; negligible params relative to model).

    s = 0 → dense attention (t = T, all masked)
    s = 1 → maximally sparse (t = 0, all revealed)

    BUG FIX #T4: output is clamped to (1e-6, 1 - 1e-6) to prevent k = 0 or k = T.
    """

    def __init__(self, hidden_size: int):
        super().__init__()
        mid = max(4, hidden_size // 4)
        self.net = nn.Sequential(
            nn.Linear(hidden_size, mid),
            nn.ReLU(),
            nn.Linear(mid, 1),
        )
        # Init: bias toward s ≈ 0.5 at start
        nn.init.zeros_(self.net[-1].weight)
        nn.init.constant_(self.net[-1].bias, 0.0)

    def forward(self, t_emb: torch.Tensor) -> torch.Tensor:
        """
        Args:
            t_emb: Timestep embedding, shape (B, C).

        Returns:
            Sparsity level s, shape (B,). Values in (1e-6, 1 - 1e-6).
        """
        raw = self.net(t_emb).squeeze(-1)        # (B,)
        # BUG FIX #T4: clamp before sigmoid to prevent saturation
        return torch.sigmoid(raw.clamp(-10.0, 10.0))


def apply_tasa_mask(
    logits:       torch.Tensor,
    t_emb:        Optional[torch.Tensor],
    gating_net:   Optional[TASAGatingNetwork],
    local_window: int   = 64,
    gamma:        float = 2.0,
    n_diffusion_steps: int = 10,
    training:     bool  = False,
    inference_only: bool = False,
) -> torch.Tensor:
    """
    Apply TASA timestep-adaptive sparse attention mask to pre-softmax logits.

    The mask is implemented as an additive log-mask:
        masked_logits[i,j] = logits[i,j]   if attended
        masked_logits[i,j] = -inf           if pruned

    Sparsity level s is predicted by gating_net(t_emb), or falls back to the
    prior s_prior(t) = 1 - (t/T)^gamma if t_emb is not provided.

    Local window guarantee (BUG FIX #T1): positions within ±(w//2) are ALWAYS
    kept, regardless of sparsity level. This prevents representation collapse.

    BUG FIX #T3: single-token sequences are returned unmodified.

    Args:
        logits:            Pre-softmax attention logits, shape (B, H, T_q, T_k).
                           MUST be float32 (attn_bias is float32 per BUG FIX #Mo1).
        t_emb:             Timestep embedding, shape (B, C). None → prior schedule.
        gating_net:        Trained TASAGatingNetwork, or None → use prior.
        local_window:      Hard local window size w (always-attend radius).
        gamma:             Prior schedule exponent.
        n_diffusion_steps: T for prior schedule normalisation.
        training:          If True and inference_only=True, skip mask.
        inference_only:    If True, only apply mask during eval.

    Returns:
        Tuple of (masked_logits, mean_sparsity):
            masked_logits: Same shape as input, float32.
            mean_sparsity: Mean sparsity level s averaged over batch (float).
                           0.0 when masking is skipped (inference_only+training,
                           or degenerate T_k<=1). Callers may ignore the second
                           element for backward compat by unpacking only the first.
    """
    # BUG FIX: inference_only mode — skip during training
    if inference_only and training:
        return logits, 0.0

    B, H, T_q, T_k = logits.shape

    # BUG FIX #T3: degenerate single-token case
    if T_k <= 1:
        return logits, 0.0

    # ── Determine sparsity level s ────────────────────────────────────────────
    if gating_net is not None and t_emb is not None:
        # Learned schedule: per-batch s values
        s = gating_net(t_emb)   # (B,)
    else:
        # Prior: s = 1 - (t/T)^gamma, approximated as 0.5 if no t_emb
        if t_emb is not None:
            # Heuristic: infer t from t_emb norm (monotonically correlated)
            t_norm = t_emb.norm(dim=-1) / (t_emb.shape[-1] ** 0.5)
            t_frac = (t_norm / t_norm.max().clamp(min=1e-8)).clamp(0.0, 1.0)
            s = 1.0 - t_frac.pow(gamma)
        else:
            s = torch.full((B,), 0.5, device=logits.device, dtype=torch.float32)

    # s is per-batch; clamp for safety (BUG FIX #T4 redundancy)
    s = s.clamp(1e-6, 1.0 - 1e-6)   # (B,)

    # ── Build local window boolean mask ──────────────────────────────────────
    # positions that are always kept (BUG FIX #T1 guarantee)
    w_half = local_window // 2
    row_idx = torch.arange(T_q, device=logits.device).unsqueeze(1)   # (T_q, 1)
    col_idx = torch.arange(T_k, device=logits.device).unsqueeze(0)   # (1, T_k)
    local_mask = (col_idx - row_idx).abs() <= w_half                  # (T_q, T_k)

    # ── Compute per-batch top-k mask ──────────────────────────────────────────
    # We operate on the mean-heads logit for efficiency (shared mask across heads)
    # shape: (B, T_q, T_k)
    mean_logits = logits.mean(dim=1)   # (B, T_q, T_k), detached for mask only
    mean_logits_detached = mean_logits.detach()

    # Number of positions to KEEP (attend): k = ceil(T_k * (1 - s))
    # Shape: (B,)
    k_vals = (T_k * (1.0 - s)).ceil().long().clamp(min=1, max=T_k)

    # Build the sparse keep mask via top-k per row per batch
    # Use the maximum k in the batch for the topk call, then mask per sample
    k_max = int(k_vals.max().item())

    # topk on (B, T_q, T_k) → (B, T_q, k_max)
    flat = mean_logits_detached.reshape(B * T_q, T_k)
    _, top_idx = flat.topk(k_max, dim=-1, sorted=False)          # (B*T_q, k_max)
    top_idx = top_idx.reshape(B, T_q, k_max)

    # Scatter to boolean keep mask using k_max (upper bound for all samples)
    keep_mask = torch.zeros(B, T_q, T_k, dtype=torch.bool, device=logits.device)
    keep_mask.scatter_(2, top_idx, True)

    # BUG FIX #T5 (v2.0.7): Vectorised per-sample k correction.
    # When samples in the same batch have different k values (k_vals[b] < k_max),
    # the k_max topk above keeps too many positions for those samples,
    # violating the per-sample sparsity guarantee.
    # Fix: compute the rank of every position per row and prune positions
    # whose rank >= k_vals[b] — fully vectorised, no Python loop.
    if int(k_vals.min().item()) < k_max:
        # ranks[b, q, j] = descending rank of position j in row q of sample b
        ranks = mean_logits_detached.argsort(dim=-1, descending=True)   # (B, T_q, T_k)
        pos_rank = torch.empty_like(ranks)
        pos_rank.scatter_(
            2, ranks,
            torch.arange(T_k, device=logits.device)
            .unsqueeze(0).unsqueeze(0).expand(B, T_q, T_k)
        )
        # k_vals[b]: (B,) → (B, 1, 1) for broadcast comparison
        keep_mask = keep_mask & (pos_rank < k_vals.view(B, 1, 1))

    # ── Apply local window guarantee ──────────────────────────────────────────
    # BUG FIX #T1: union with local_mask — local window always attended
    keep_mask = keep_mask | local_mask.unsqueeze(0)   # (B, T_q, T_k)

    # ── Build additive log-mask ───────────────────────────────────────────────
    # BUG FIX #T2: additive (not in-place), float32, before softmax
    log_mask = torch.zeros(B, 1, T_q, T_k, device=logits.device, dtype=torch.float32)
    log_mask.masked_fill_(~keep_mask.unsqueeze(1), float("-inf"))

    return logits + log_mask, float(s.mean().item())
