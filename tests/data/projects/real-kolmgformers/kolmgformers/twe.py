"""
kolmgformers/twe.py  v2.0.6
===========================
Temporal Weight Embedding (TWE)
*Teaching Language Models That Knowledge Has an Age*

Paper: TWE — Temporal Weight Embedding (OMGFormers Architecture Family #3)

Architecture:
  - TemporalEmbedding: Two-dim (alpha, beta) → d_t MLP, projected into
    the model's hidden dimension alongside the standard token embedding.
  - TemporalRegistry: Lightweight per-user key-value store for temporal
    metadata (t_established, t_last_confirmed, confirmations, contradictions).
  - Attention modulation: gamma * log(R_j) bias added to QK^T before softmax.
  - Output reliability score R_output exposed for UI display.

Integration points (see configuration.py for TWEConfig):
  - modeling.py embeds TWE signal at the embedding layer.
  - attention.py accepts twe_reliability kwarg for attention modulation.
  - training.py adds L_temporal calibration loss.

v2.0.6 — Initial implementation.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


__all__ = [
    "TWEConfig",
    "TemporalEntry",
    "TemporalRegistry",
    "TemporalEmbedding",
    "TemporalCalibrationLoss",
]


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── TWE Configuration ────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

@dataclass
class TWEConfig:
    """
    Configuration for Temporal Weight Embedding.

    Fields:
        enabled:          Master switch. False = TWE is fully bypassed (zero overhead).
        temporal_dim:     Dimension d_t of the temporal projection (default 32).
        gamma_init:       Initial value of the attention modulation scalar γ.
                          Learned during training. 0.0 = no modulation at init.
        lambda_temporal:  Weight of the temporal calibration loss in total loss.
        max_age_days:     Normalization ceiling for alpha (age dimension).
                          Knowledge older than this is clamped to alpha=0.
        silence_decay:    Per-month decay applied to beta when knowledge has not
                          been confirmed recently (0.0–1.0; default 0.95).
        registry_path:    Optional path for TemporalRegistry persistence.
                          None = in-memory only (cleared on restart).
    """
    enabled:          bool  = False
    temporal_dim:     int   = 32
    gamma_init:       float = 0.1
    lambda_temporal:  float = 0.05
    max_age_days:     int   = 3650       # 10 years
    silence_decay:    float = 0.95       # beta decay per month without confirmation
    registry_path:    Optional[str] = None


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Temporal Registry ────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

@dataclass
class TemporalEntry:
    """
    Temporal metadata for a single knowledge claim.

    Attributes:
        t_established:      Unix timestamp of first occurrence in training/DLA.
        t_last_confirmed:   Unix timestamp of most recent independent confirmation.
        confirmation_count: Total independent confirmations seen.
        contradiction_count: Total contradictions encountered.
    """
    t_established:      float = field(default_factory=time.time)
    t_last_confirmed:   float = field(default_factory=time.time)
    confirmation_count: int   = 1
    contradiction_count: int  = 0


class TemporalRegistry:
    """
    Lightweight in-memory (optionally persistent) store for temporal metadata.

    Keys are canonical knowledge identifiers (hashed strings).
    Values are TemporalEntry dataclasses.

    Lookups are O(1) dict access and add negligible inference latency.

    Usage::

        registry = TemporalRegistry(config)
        entry    = registry.get("speed_of_light")
        alpha, beta = registry.compute_alpha_beta(entry, config)
        registry.update("speed_of_light", confirmed=True)
    """

    def __init__(self, config: TWEConfig):
        self.config: TWEConfig = config
        self._store: Dict[str, TemporalEntry] = {}

        if config.registry_path is not None:
            self._load(config.registry_path)

    # ── Public API ────────────────────────────────────────────────────────────

    def get(self, knowledge_id: str) -> Optional[TemporalEntry]:
        """Return the TemporalEntry for this knowledge ID, or None if absent."""
        return self._store.get(self._key(knowledge_id))

    def set(self, knowledge_id: str, entry: TemporalEntry) -> None:
        """Insert or overwrite a TemporalEntry."""
        self._store[self._key(knowledge_id)] = entry

    def update(self, knowledge_id: str, confirmed: bool) -> None:
        """
        Register a new observation of a knowledge claim.

        If the claim is not in the registry, it is added with a fresh entry.
        If confirmed=True, increment confirmation_count and update t_last_confirmed.
        If confirmed=False, increment contradiction_count.
        """
        key = self._key(knowledge_id)
        if key not in self._store:
            self._store[key] = TemporalEntry()
        entry = self._store[key]
        now   = time.time()
        if confirmed:
            entry.confirmation_count  += 1
            entry.t_last_confirmed     = now
        else:
            entry.contradiction_count += 1

    def compute_alpha_beta(
        self,
        entry:   TemporalEntry,
        t_now:   Optional[float] = None,
    ) -> Tuple[float, float]:
        """
        Compute the (alpha, beta) temporal signal from a TemporalEntry.

        alpha (Knowledge Age):
            1.0 = established right now (most recent)
            0.0 = established max_age_days ago or earlier

        beta (Validation Frequency):
            High  = frequently confirmed, not contradicted, confirmed recently
            Low   = rarely confirmed, or contradicted, or not seen in a long time
            Range: [0.0, 1.0]

        Args:
            entry:  TemporalEntry from the registry.
            t_now:  Current Unix timestamp. Defaults to time.time().

        Returns:
            (alpha, beta) both in [0.0, 1.0].
        """
        t_now = t_now or time.time()
        cfg   = self.config

        # ── Alpha: recency of establishment ───────────────────────────────────
        age_seconds = max(0.0, t_now - entry.t_established)
        max_seconds = cfg.max_age_days * 86400.0
        alpha       = float(max(0.0, 1.0 - age_seconds / max_seconds))

        # ── Beta: validation frequency with silence decay ─────────────────────
        confirmations = max(0, entry.confirmation_count)
        contradictions= max(0, entry.contradiction_count)

        # Months since last confirmation — apply silence decay
        months_silent = max(0.0, (t_now - entry.t_last_confirmed) / (86400.0 * 30.0))
        silence_pen   = (cfg.silence_decay ** months_silent)

        denom = confirmations + contradictions + 1e-8
        raw   = confirmations / denom
        beta  = float(max(0.0, min(1.0, raw * silence_pen)))

        return alpha, beta

    def default_alpha_beta(self) -> Tuple[float, float]:
        """
        Cold-start prior for knowledge with no registry entry.

        Returns a neutral (0.5, 0.5) as a safe default.
        """
        return 0.5, 0.5

    # ── Persistence ───────────────────────────────────────────────────────────

    def save(self, path: Optional[str] = None) -> None:
        """Persist the registry to disk as a PyTorch .pt file."""
        import os
        target = path or self.config.registry_path
        if target is None:
            return
        os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        data = {k: vars(v) for k, v in self._store.items()}
        torch.save(data, target)

    def _load(self, path: str) -> None:
        import os
        if not os.path.exists(path):
            return
        try:
            data = torch.load(path, map_location="cpu", weights_only=False)
            self._store = {k: TemporalEntry(**v) for k, v in data.items()}
            print(f"[TWE] Registry loaded ← {path}  ({len(self._store)} entries)")
        except Exception as e:
            print(f"[TWE] Warning: registry load failed ({e}). Starting fresh.")

    @staticmethod
    def _key(knowledge_id: str) -> str:
        """Canonicalize and hash a knowledge ID to a short fixed-length key."""
        if len(knowledge_id) <= 64:
            return knowledge_id.strip().lower()
        return hashlib.sha256(knowledge_id.encode()).hexdigest()[:32]


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Temporal Embedding Module ────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class TemporalEmbedding(nn.Module):
    """
    Temporal Weight Embedding layer.

    Takes a 2D temporal signal (alpha, beta) per token and projects it
    into the model's hidden dimension, producing an additive embedding that
    is summed with the standard token + positional embedding.

    Architecture:
        [alpha, beta] → MLP (2 → d_t) → Linear (hidden_size + d_t → hidden_size)

    The projection layer combines the temporal signal with the existing token
    embedding before the first transformer block.

    Also computes and exposes a per-token reliability scalar R ∈ [0,1] that
    is used by TWEAttentionBias for soft attention modulation.

    Args:
        hidden_size:  Model hidden dimension C.
        config:       TWEConfig instance.
    """

    def __init__(self, hidden_size: int, config: TWEConfig):
        super().__init__()
        self.config       = config
        self.hidden_size  = hidden_size
        d_t               = config.temporal_dim

        # 2D temporal signal → d_t representation
        self.temporal_mlp = nn.Sequential(
            nn.Linear(2, d_t * 2),
            nn.SiLU(),
            nn.Linear(d_t * 2, d_t),
        )

        # Project (C + d_t) back to C
        self.proj = nn.Linear(hidden_size + d_t, hidden_size, bias=False)

        # Learned scalar reliability weights (w_alpha, w_beta)
        self.w_alpha = nn.Parameter(torch.tensor(0.5))
        self.w_beta  = nn.Parameter(torch.tensor(0.5))

        self._init_weights()

    def _init_weights(self) -> None:
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def reliability(self, alpha: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
        """
        Compute per-token reliability score R ∈ [0,1].

        R = sigmoid(w_alpha) * f(alpha) + sigmoid(w_beta) * beta

        where f(alpha) applies a sharpened penalty for very old knowledge:
            f(alpha) = alpha^2   (penalizes staleness super-linearly)

        Args:
            alpha: Knowledge age tensor, shape (B, T) or scalar.
            beta:  Validation frequency tensor, same shape as alpha.

        Returns:
            Reliability tensor, same shape as alpha.
        """
        wa = torch.sigmoid(self.w_alpha)
        wb = torch.sigmoid(self.w_beta)
        f_alpha = alpha ** 2   # sharper penalty for old knowledge
        R = (wa * f_alpha + wb * beta).clamp(0.0, 1.0)
        return R

    def forward(
        self,
        token_embeds: torch.Tensor,
        alpha:        torch.Tensor,
        beta:         torch.Tensor,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        Inject temporal signal into token embeddings.

        Args:
            token_embeds: Standard token embeddings, shape (B, T, C).
            alpha:        Knowledge age, shape (B, T).
            beta:         Validation frequency, shape (B, T).

        Returns:
            Tuple of:
              - h: Temporally-enriched embeddings, shape (B, T, C).
              - R: Per-token reliability scores, shape (B, T).
        """
        # Build temporal signal (B, T, 2) → (B, T, d_t)
        temporal_signal = torch.stack([alpha, beta], dim=-1).float()   # (B, T, 2)
        t_emb           = self.temporal_mlp(temporal_signal)            # (B, T, d_t)

        # Concatenate and project back to C
        h = self.proj(torch.cat([token_embeds, t_emb], dim=-1))        # (B, T, C)

        # Reliability scores
        R = self.reliability(alpha, beta)                                # (B, T)

        return h, R


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Temporal Attention Bias ───────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class TWEAttentionBias(nn.Module):
    """
    Additive attention bias from temporal reliability scores.

    Computes gamma * log(R_j) for each key token j and adds it to the
    attention weights before softmax. This soft-discounts temporally
    unreliable tokens without ignoring them entirely.

    Mathematically:
        attn_weight(i, j) = softmax( QK^T/sqrt(d_k) + gamma * log(R_j) )

    gamma is a learned scalar initialized from TWEConfig.gamma_init.
    log is clamped at log(1e-8) to avoid -inf for R=0.

    Args:
        config: TWEConfig instance.
    """

    def __init__(self, config: TWEConfig):
        super().__init__()
        self.gamma = nn.Parameter(torch.tensor(config.gamma_init))

    def forward(self, reliability: torch.Tensor) -> torch.Tensor:
        """
        Compute the additive attention bias.

        Args:
            reliability: Per-token reliability R, shape (B, T).

        Returns:
            Attention bias, shape (B, 1, 1, T) — broadcasts over heads and
            query positions, applied to the key dimension.
        """
        log_r = torch.log(reliability.clamp(min=1e-8))        # (B, T)
        bias  = (self.gamma * log_r).unsqueeze(1).unsqueeze(2) # (B, 1, 1, T)
        return bias.float()


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Temporal Calibration Loss ────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class TemporalCalibrationLoss(nn.Module):
    """
    Auxiliary loss that trains reliability scores to be calibrated.

    L_temporal = MSE(R_predicted, R_actual)
    L_total    = L_lm + lambda_t * L_temporal

    R_actual is provided by the training dataset:
      - Permanent knowledge (physics, math): R_actual = 1.0
      - Time-indexed knowledge known to be outdated: R_actual = 0.0
      - Valid knowledge within its window: R_actual = 1.0

    Args:
        config: TWEConfig instance.
    """

    def __init__(self, config: TWEConfig):
        super().__init__()
        self.lambda_t = config.lambda_temporal

    def forward(
        self,
        r_predicted: torch.Tensor,
        r_actual:    torch.Tensor,
        mask:        Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        """
        Compute temporal calibration loss.

        Args:
            r_predicted: Model's reliability predictions, shape (B, T).
            r_actual:    Ground-truth reliability labels, shape (B, T).
            mask:        Optional mask (1=valid, 0=ignore), shape (B, T).

        Returns:
            Scalar temporal calibration loss (pre-scaled by lambda_t).
        """
        loss = F.mse_loss(r_predicted.float(), r_actual.float(), reduction="none")
        if mask is not None:
            loss = (loss * mask.float()).sum() / mask.float().sum().clamp(min=1)
        else:
            loss = loss.mean()
        return self.lambda_t * loss


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Output reliability aggregation ───────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def compute_output_reliability(
    reliability:     torch.Tensor,
    attention_weights: Optional[torch.Tensor] = None,
) -> torch.Tensor:
    """
    Compute a single scalar reliability estimate for the full output.

    R_output = sum_i(a_i * R_i) / sum_i(a_i)

    If no attention weights are provided, uses a simple mean of R.

    Args:
        reliability:       Per-token reliability, shape (B, T).
        attention_weights: Total attention each token received across all
                           layers and heads, shape (B, T). Optional.

    Returns:
        Per-batch reliability scalar, shape (B,).
    """
    if attention_weights is not None:
        denom  = attention_weights.sum(dim=-1).clamp(min=1e-8)
        r_out  = (attention_weights * reliability).sum(dim=-1) / denom
    else:
        r_out  = reliability.mean(dim=-1)
    return r_out.clamp(0.0, 1.0)
