"""
kolmgformers/modeling.py  v2.0.7
=================================
Core OMGFormer model definition.

Changes in v2.0.7 (OMGFormers Architecture Family — Research Preview):
  NEW Feature #TASA — Timestep-Adaptive Sparse Attention:
        Dynamically modulates attention sparsity based on the diffusion timestep.
        Early steps (high t) → dense attention for global structure.
        Late steps (low t)   → sparse attention for local refinement.
        40–60% attention FLOP reduction. No weight changes needed.
        Enabled via OMGConfig.tasa_config (TASAConfig instance).

  NEW Feature #MFS — MASK-Token FFN Skip:
        Skips or approximates FFN computation for [MASK] tokens, which carry no
        token-specific semantic content. 40–65% average FFN savings.
        Three modes: SKIP (fastest), PROXY (quality+speed), INTERPOLATED (training).
        Enabled via OMGConfig.mfs_config (MFSConfig instance).

  NEW Feature #DI — Delta Inference:
        Maintains a hidden state cache across diffusion steps. Computes only the
        incremental update caused by newly unmasked tokens via a sparse delta pass.
        Theoretical 2×–4× speedup. Enabled via OMGConfig.di_config (DIConfig instance).
        See kolmgformers/di.py and DeltaCache for usage in the generation loop.

  BUG FIX #Mo5 — OMGModelOutput: `creative_output: Optional[Any]` and all
                 `Optional[Any]` fields used `Any` without importing it from
                 `typing`. This caused NameError at dataclass construction time
                 on Python 3.9 (where `from __future__ import annotations` defers
                 annotation evaluation but `dataclass` field defaults still evaluate
                 at class body parse time on some minor versions).
                 Fix: add `Any` to the `from typing import` line.

  BUG FIX #Mo6 — OMGModel._forward_blocks_dual: bridge_delta was re-initialised
                 as `torch.zeros_like(h_g)` inside the loop body on EVERY iteration,
                 even for non-bridge layers. On very deep models (num_layers > 32)
                 this allocates num_layers × (B × T × C) bytes of zero tensors that
                 are immediately discarded. Fix: only allocate bridge_delta when the
                 bridge actually fires (l % K == 0).

  BUG FIX #Mo7 — OMGModel.generate / generate_cfg: `self.eval()` was called inside
                 `generate_cfg` but `generate` had no corresponding eval() call.
                 If the model was in training mode, dropout + stochastic depth would
                 corrupt generation quality silently. Both methods now set eval mode
                 and restore the original training state via a context manager.

  All v2.0.6 features and bug fixes preserved.
  All v2.0.5 bug fixes preserved (#Mo1–#Mo4).

Changes in v2.0.6 (OMGFormers Architecture Family full integration):
  NEW Feature #DS-PDLM — Dual-Stream Parallel Diffusion LM:
        Understanding and generation as two parallel, asymmetrically coupled
        streams. BridgeChannel fires every K layers (default K=4), transmitting
        a mean-pooled, MLP-projected summary from U-Stream to G-Stream.
        One-directional: G-Stream never writes back to U-Stream.
        Stop-gradient on U-Stream hidden states at bridge input prevents
        generative pressure from corrupting the understanding stream.
        Enabled via OMGConfig.use_dual_stream=True.

  NEW Feature #TWE — Temporal Weight Embedding:
        Every token embedding is enriched with a 2D temporal signal (alpha,
        beta) from the TemporalRegistry. Attention weights are soft-modulated
        by token reliability R via gamma * log(R_j). Output reliability score
        R_output is computed and attached to OMGModelOutput.
        Enabled via OMGConfig.twe_config (TWEConfig instance).

  NEW Feature #NCA — Neuro-Creative Architecture v2:
        When NCA is enabled, OMGModel.forward checks novelty after the
        U-Stream (DS-PDLM) or standard blocks, and routes through
        CreativeModeRouter when N >= theta_N. The creative latent vector
        replaces or supplements the standard logit computation.
        Enabled via OMGConfig.nca_config (NCAConfig instance).

  All v2.0.6-BETA features and bug fixes preserved.
  All v2.0.5-BETA bug fixes preserved (#Mo1–#Mo4).

Bug fixes from v2.0.5-BETA (preserved):
  BUG FIX #Mo1 — OMGModel.forward: attention_mask → attn_bias conversion used
                 a scale of -1e4 for masked positions.  In float16, -1e4 is
                 representable but causes softmax to produce ~0 rather than
                 exactly 0.  In bfloat16, values below ~-3.4e38 saturate and
                 -1e4 is fine, BUT when the attn_bias is cast to BF16 earlier
                 and then combined with ALiBi/T5 bias (float32), the mixed-dtype
                 add raised a RuntimeError on some torch versions.
                 Fix: keep attn_bias in float32 throughout (SDPA up-casts).
                 Also use -1e9 instead of -1e4 (safe for both FP16 and BF16).
  BUG FIX #Mo2 — OMGModel._forward_blocks checkpointing: the lambda captured
                 t_emb and attn_bias by reference via default args (_t=t_emb),
                 which is correct in Python, but torch.utils.checkpoint
                 serializes the closure and the default-arg trick breaks for
                 non-tensor captures when use_reentrant=False.
                 Fix: use functools.partial and pass tensors directly.
  BUG FIX #Mo3 — OMGModel.forward: after prefix/vision tokens are prepended,
                 hidden_text was computed as hidden[:, x.size(1)-T:, :].
                 But x.size(1) is the PADDED length at the start of forward
                 (before blocks), not the output length (which stays the same).
                 The slice was correct for prefix but broke when both prefix
                 AND vision tokens were prepended (double-prefix offset bug).
                 Fix: track the offset explicitly as a single variable.
  BUG FIX #Mo4 — generate_cfg: _cosine_counts was called but never imported/
                 defined in modeling.py (it lives in diffusion.py), causing
                 a NameError at runtime.  Fixed by importing from diffusion.

Features (unchanged from v2.0.5):
  Feature #19 — Encoder-only mode (BERT-style)
  Feature #20 — Pooling head (sentence embeddings)
  Feature #21 — Cross-attention encoder-decoder
  Feature #22 — Learnable positional embedding
  Feature #23 — Vision patch embedding (multimodal)
  Feature #24 — Prefix tuning (soft prompts)
  Feature #25 — Per-block gradient checkpointing
  Feature #26 — Classifier-free guidance (CFG)
  Feature #27 — Register tokens (DINOv2-style)
  Feature #28 — save_pretrained / from_pretrained
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass
from typing import Any, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from kolmgformers.configuration import OMGConfig
from kolmgformers.layers import (
    RMSNorm, build_norm, OMGBlock, SelfCondProjection,
    LearnedPositionalEmbedding,
)

# ── v2.0.6 Architecture Family imports (lazy to avoid hard deps) ─────────────
try:
    from kolmgformers.twe import TWEConfig, TemporalEmbedding, TWEAttentionBias
    _TWE_AVAILABLE = True
except ImportError:
    _TWE_AVAILABLE = False

try:
    from kolmgformers.nca import NCAConfig, CreativeModeRouter, CreativeOutput
    _NCA_AVAILABLE = True
except ImportError:
    _NCA_AVAILABLE = False

# ── v2.0.7 efficiency imports ─────────────────────────────────────────────────
try:
    from kolmgformers.tasa import TASAConfig, TASAGatingNetwork, apply_tasa_mask
    _TASA_AVAILABLE = True
except ImportError:
    _TASA_AVAILABLE = False

try:
    from kolmgformers.mfs import MFSConfig, MFSMode, MFSLayer
    _MFS_AVAILABLE = True
except ImportError:
    _MFS_AVAILABLE = False

try:
    from kolmgformers.di import DIConfig, DeltaCache
    _DI_AVAILABLE = True
except ImportError:
    _DI_AVAILABLE = False


__all__ = [
    "OMGModelOutput",
    "TimestepEmbedding",
    "DualStreamConfig",
    "BridgeChannel",
    "OMGModel",
]


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── DS-PDLM: Dual-Stream Config ──────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

from dataclasses import dataclass as _dc

@_dc
class DualStreamConfig:
    """
    Configuration for DS-PDLM dual-stream architecture.

    Fields:
        enabled:              Master switch. False = single-stream (default).
        bridge_interval_K:    Fire bridge every K layers (default 4).
        bridge_bottleneck:    Compression function: 'mean_pool' | 'learned'.
        u_stream_share_weights: Share U-Stream block weights with G-Stream.
                              True = zero extra params, reduced specialization.
                              Use only as ablation baseline.
        u_stream_aux_lambda:  Weight of the auxiliary U-Stream MLM loss.
                              0.0 = disabled. Paper recommends 0.1.
    """
    enabled:               bool  = False
    bridge_interval_K:     int   = 4
    bridge_bottleneck:     str   = "mean_pool"   # mean_pool | learned
    u_stream_share_weights: bool = False
    u_stream_aux_lambda:   float = 0.1


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── DS-PDLM: Bridge Channel ──────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class BridgeChannel(nn.Module):
    """
    DS-PDLM Bridge Channel.

    Compresses the U-Stream hidden state to a scalar summary and broadcasts
    it back to sequence length. One-directional: U→G only.

    Mathematically:
        summary    = W_bridge * MeanPool(h^U_l)   shape (B, 1, C)
        delta^G_l  = summary.expand_as(h^U_l)     shape (B, T, C)

    The bridge is in the computational graph for G-Stream loss gradients.
    U-Stream hidden states are detached before entering the bridge
    (stop-gradient) to prevent generative pressure from corrupting the
    understanding stream.

    Args:
        hidden_size:  Model hidden dimension C.
        bottleneck:   'mean_pool' (fixed) or 'learned' (MLP compression).
    """

    def __init__(self, hidden_size: int, bottleneck: str = "mean_pool"):
        super().__init__()
        self.bottleneck = bottleneck

        if bottleneck == "learned":
            # Learned compression: h^U → summary vector via small MLP.
            # self.proj is NOT created in this branch — it is unused and would
            # accumulate dead gradients. BUG FIX #6 (v2.0.7).
            self.proj        = None
            self.compress_mlp = nn.Sequential(
                nn.Linear(hidden_size, hidden_size // 2),
                nn.SiLU(),
                nn.Linear(hidden_size // 2, hidden_size),
            )
        else:
            # Mean-pool bottleneck (paper default)
            self.proj         = nn.Linear(hidden_size, hidden_size, bias=False)
            self.compress_mlp = None
            nn.init.eye_(self.proj.weight)   # start as identity — stable init

    def forward(self, u_hidden: torch.Tensor) -> torch.Tensor:
        """
        Args:
            u_hidden: U-Stream hidden states, shape (B, T, C).

        Returns:
            Bridge signal delta^G, shape (B, T, C).
        """
        # Stop-gradient: U-Stream block weights are protected from G-Stream loss
        u_detached = u_hidden.detach()

        if self.compress_mlp is not None:
            # Learned bottleneck
            pooled  = u_detached.mean(dim=1, keepdim=True)   # (B, 1, C)
            summary = self.compress_mlp(pooled)               # (B, 1, C)
        else:
            # Mean-pool bottleneck (paper default)
            pooled  = u_detached.mean(dim=1, keepdim=True)   # (B, 1, C)
            summary = self.proj(pooled)                       # (B, 1, C)

        return summary.expand_as(u_hidden)   # (B, T, C)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Output dataclass ─────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

@dataclass
class OMGModelOutput:
    """
    Output container for OMGModel.

    Attributes:
        logits:            Token logits, shape (B, T, vocab_size).
        last_hidden_state: Final hidden states, shape (B, T, C). Optional.
        loss:              Scalar training loss. Optional.
        pooled_output:     Pooled sentence embedding, shape (B, embed_dim).
                           Only when use_pooling_head=True.
        aux_loss:          MoE auxiliary load-balancing loss. Optional.
        u_stream_hidden:   U-Stream final hidden states (B, T, C). Optional.
                           Only when use_dual_stream=True. Used for probing,
                           auxiliary MLM loss, and NCA novelty detection.
        output_reliability: Temporal reliability of the response (B,). Optional.
                            Only when twe_config.enabled=True.
        creative_output:   CreativeOutput metadata when NCA Creative Mode fired.
    """
    logits:              torch.Tensor
    last_hidden_state:   Optional[torch.Tensor] = None
    loss:                Optional[torch.Tensor] = None
    pooled_output:       Optional[torch.Tensor] = None
    aux_loss:            Optional[torch.Tensor] = None
    u_stream_hidden:     Optional[torch.Tensor] = None
    output_reliability:  Optional[torch.Tensor] = None
    creative_output:     Optional[Any]           = None
    # v2.0.7 additions
    tasa_sparsity:       Optional[float]         = None   # Mean attention sparsity used
    mfs_skip_ratio:      Optional[float]         = None   # Fraction of FFN tokens skipped


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Timestep Embedding ───────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class TimestepEmbedding(nn.Module):
    """
    Sinusoidal timestep embedding followed by a 2-layer MLP.

    Input:  t (B,)  — integer timestep indices
    Output: emb (B, dim) — timestep conditioning vector

    The sinusoidal encoding is the same as in DDPM/DiT.
    The MLP projects to the model's hidden dimension.

    Args:
        dim: Output embedding dimension (should match hidden_size).
    """

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        self.mlp = nn.Sequential(
            nn.Linear(dim, dim * 4),
            nn.SiLU(),
            nn.Linear(dim * 4, dim),
            # Note: no final activation — matches DDPM/DiT convention.
            # A trailing SiLU would restrict the output range unnecessarily.
            # BUG FIX #14 (v2.0.7).
        )

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        """
        Args:
            t: Integer timesteps, shape (B,).

        Returns:
            Timestep embedding, shape (B, dim).
        """
        half  = self.dim // 2
        freqs = torch.exp(
            -math.log(10_000)
            * torch.arange(half, device=t.device, dtype=torch.float32)
            / half
        )
        args = t.float()[:, None] * freqs[None]
        emb  = torch.cat([args.sin(), args.cos()], dim=-1)   # (B, dim)
        return self.mlp(emb)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #23 : Vision Patch Embedding ─────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class PatchEmbedding(nn.Module):
    """
    ViT-style patch embedding for vision inputs.

    Splits an image into non-overlapping patches and projects each patch
    to the model hidden dimension via a single Conv2d operation.

    Args:
        image_size:  Input image size (assumed square).
        patch_size:  Patch size in pixels.
        in_channels: Number of input image channels.
        hidden_size: Output embedding dimension.
    """

    def __init__(
        self,
        image_size:  int = 224,
        patch_size:  int = 16,
        in_channels: int = 3,
        hidden_size: int = 768,
    ):
        super().__init__()
        self.image_size  = image_size
        self.patch_size  = patch_size
        self.num_patches = (image_size // patch_size) ** 2
        self.proj = nn.Conv2d(
            in_channels, hidden_size,
            kernel_size=patch_size, stride=patch_size
        )
        self.cls_token = nn.Parameter(torch.zeros(1, 1, hidden_size))
        self.pos_embed = nn.Parameter(
            torch.zeros(1, self.num_patches + 1, hidden_size)
        )
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """
        Args:
            images: Image tensor, shape (B, C, H, W).

        Returns:
            Patch tokens with CLS, shape (B, num_patches+1, hidden_size).
        """
        B   = images.shape[0]
        x   = self.proj(images).flatten(2).transpose(1, 2)   # (B, N_patches, C)
        cls = self.cls_token.expand(B, -1, -1)
        x   = torch.cat([cls, x], dim=1)                     # (B, N+1, C)
        return x + self.pos_embed


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #20 : Pooling Head ───────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class PoolingHead(nn.Module):
    """
    Sentence/document embedding pooling head.

    Aggregates token representations into a single fixed-size vector
    suitable for embedding tasks (semantic search, classification).

    Supports CLS, mean, max, weighted_mean, and last-token pooling.

    Args:
        hidden_size:   Model hidden dimension.
        embedding_dim: Output embedding dimension.
        pooling_type:  "cls" | "mean" | "max" | "weighted_mean" | "last"
        normalize:     If True, L2-normalize the output embedding.
    """

    def __init__(
        self,
        hidden_size:   int,
        embedding_dim: int,
        pooling_type:  str  = "cls",
        normalize:     bool = True,
    ):
        super().__init__()
        self.pooling_type = pooling_type
        self.normalize    = normalize
        self.proj = nn.Linear(hidden_size, embedding_dim)

        if pooling_type == "weighted_mean":
            self.weights = nn.Linear(hidden_size, 1)

    def forward(
        self,
        hidden:    torch.Tensor,
        attn_mask: Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        """
        Args:
            hidden:    Hidden states, shape (B, T, C).
            attn_mask: Boolean mask (1=real, 0=pad), shape (B, T). Optional.

        Returns:
            Pooled embedding, shape (B, embedding_dim).
        """
        if self.pooling_type == "cls":
            pooled = hidden[:, 0, :]

        elif self.pooling_type == "mean":
            if attn_mask is not None:
                mask   = attn_mask.unsqueeze(-1).float()
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            else:
                pooled = hidden.mean(dim=1)

        elif self.pooling_type == "max":
            if attn_mask is not None:
                mask   = attn_mask.unsqueeze(-1).float()
                # BUG FIX #17 (v2.0.7): if all positions are masked the max
                # returns -inf which produces NaN after projection.  Fall back
                # to the zero vector for fully-padded sequences.
                hidden = hidden.masked_fill(mask == 0, float("-inf"))
            pooled = hidden.max(dim=1).values
            # Replace -inf rows (all-masked) with zeros to avoid NaN
            pooled = torch.where(pooled.isinf() & (pooled < 0),
                                 torch.zeros_like(pooled), pooled)

        elif self.pooling_type == "weighted_mean":
            w      = self.weights(hidden).softmax(dim=1)   # (B, T, 1)
            pooled = (hidden * w).sum(dim=1)

        elif self.pooling_type == "last":
            if attn_mask is not None:
                last_idx = attn_mask.sum(dim=1) - 1
                pooled   = hidden[torch.arange(hidden.size(0)), last_idx]
            else:
                pooled = hidden[:, -1, :]
        else:
            raise ValueError(f"Unknown pooling_type '{self.pooling_type}'.")

        out = self.proj(pooled)
        if self.normalize:
            out = F.normalize(out, dim=-1)
        return out


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Main Model ───────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class OMGModel(nn.Module):
    """
    OMGFormer v2 — Parallel Diffusion Language Model.

    Core generation algorithm:
      1. Full sequence is masked: [prompt | MASK MASK MASK ...]
      2. Every step: full sequence goes through one forward pass.
      3. Tokens with the highest confidence are unmasked.
      4. (Optional) Previous step predictions are fed back as self-conditioning.

    The model supports multiple operation modes:
      - Text generation (default): diffusion-based parallel decoding.
      - Encoder-only (config.encoder_only=True): BERT-style masked LM.
      - Embedding model (config.use_pooling_head=True): sentence embeddings.
      - Vision-language (config.use_vision=True): multimodal inputs.
      - MoE (config.use_moe=True): sparse mixture of experts.

    Args:
        config: OMGConfig instance defining the full architecture.
    """

    config_class = OMGConfig

    def __init__(self, config: OMGConfig):
        super().__init__()
        self.config = config

        # ── Token embedding ───────────────────────────────────────────
        self.embed = nn.Embedding(
            config.vocab_size,
            config.hidden_size,
            padding_idx=config.pad_token_id,
        )

        # ── Positional encoding (only for learned pos enc) ────────────
        self.pos_enc: Optional[LearnedPositionalEmbedding] = None
        if config.pos_encoding == "learned":
            self.pos_enc = LearnedPositionalEmbedding(
                config.max_length, config.hidden_size, config.dropout
            )

        # ── Feature #23 : Vision patch embedding ──────────────────────
        self.patch_embed: Optional[PatchEmbedding] = None
        if config.use_vision:
            self.patch_embed = PatchEmbedding(
                image_size  = config.image_size,
                patch_size  = config.patch_size,
                in_channels = config.num_channels,
                hidden_size = config.hidden_size,
            )

        # ── Timestep embedding (diffusion) ────────────────────────────
        self.time_emb = TimestepEmbedding(config.hidden_size)

        # ── Self-conditioning projection ──────────────────────────────
        self.self_cond_proj: Optional[SelfCondProjection] = None
        if config.self_conditioning:
            self.self_cond_proj = SelfCondProjection(config)

        # ── Feature #24 : Prefix tuning ───────────────────────────────
        self.prefix_tokens: Optional[nn.Parameter] = None
        if config.prefix_tuning and config.prefix_length > 0:
            self.prefix_tokens = nn.Parameter(
                torch.zeros(1, config.prefix_length, config.hidden_size)
            )
            nn.init.trunc_normal_(self.prefix_tokens, std=0.02)

        # ── Transformer blocks with stochastic depth schedule ─────────
        if config.stochastic_depth_rate > 0:
            drop_rates = [
                config.stochastic_depth_rate * i / max(config.num_layers - 1, 1)
                for i in range(config.num_layers)
            ]
        else:
            drop_rates = [0.0] * config.num_layers

        # G-Stream blocks (always present)
        self.blocks = nn.ModuleList(
            [OMGBlock(config, drop_path_rate=drop_rates[i])
             for i in range(config.num_layers)]
        )

        # ── v2.0.6 Feature #DS-PDLM: Dual-Stream ─────────────────────
        self.dual_stream_config: Optional[DualStreamConfig] = getattr(
            config, "dual_stream_config", None
        )
        self.u_blocks: Optional[nn.ModuleList] = None
        self.u_norm:   Optional[nn.Module]     = None
        self.bridges:  Optional[nn.ModuleList] = None

        if self.dual_stream_config is not None and self.dual_stream_config.enabled:
            ds = self.dual_stream_config
            if ds.u_stream_share_weights:
                # Ablation: share weights (no extra params)
                self.u_blocks = self.blocks
            else:
                self.u_blocks = nn.ModuleList(
                    [OMGBlock(config, drop_path_rate=drop_rates[i])
                     for i in range(config.num_layers)]
                )
            self.u_norm = build_norm(
                config.norm_type, config.hidden_size, config.rms_norm_eps
            )
            # One bridge per bridge-firing layer
            n_bridges = config.num_layers // ds.bridge_interval_K + 1
            self.bridges = nn.ModuleList([
                BridgeChannel(config.hidden_size, ds.bridge_bottleneck)
                for _ in range(n_bridges)
            ])

        # ── v2.0.6 Feature #TWE: Temporal Weight Embedding ────────────
        self.twe_embed: Optional[Any] = None
        self.twe_attn_bias: Optional[Any] = None
        twe_cfg = getattr(config, "twe_config", None)
        if twe_cfg is not None and twe_cfg.enabled and _TWE_AVAILABLE:
            from kolmgformers.twe import TemporalEmbedding, TWEAttentionBias
            self.twe_embed     = TemporalEmbedding(config.hidden_size, twe_cfg)
            self.twe_attn_bias = TWEAttentionBias(twe_cfg)

        # ── v2.0.6 Feature #NCA: Neuro-Creative Architecture v2 ───────
        self.nca_router: Optional[Any] = None
        nca_cfg = getattr(config, "nca_config", None)
        if nca_cfg is not None and nca_cfg.enabled and _NCA_AVAILABLE:
            from kolmgformers.nca import CreativeModeRouter
            self.nca_router = CreativeModeRouter(config.hidden_size, nca_cfg)

        # ── Final layer norm ──────────────────────────────────────────
        self.norm = build_norm(config.norm_type, config.hidden_size, config.rms_norm_eps)

        # ── LM head ───────────────────────────────────────────────────
        if config.tie_word_embeddings:
            self.lm_head = None
        else:
            self.lm_head = nn.Linear(
                config.hidden_size, config.vocab_size, bias=False
            )

        # ── Feature #20 : Pooling head ────────────────────────────────
        self.pooling_head: Optional[PoolingHead] = None
        if config.use_pooling_head:
            self.pooling_head = PoolingHead(
                hidden_size   = config.hidden_size,
                embedding_dim = config.embedding_dim or config.hidden_size,
                pooling_type  = config.pooling_type,
            )

        self._init_weights()

    # ── Weight initialization ─────────────────────────────────────────────

    def _init_weights(self) -> None:
        """
        Scaled initialization for stable deep network training.

        Residual branches use std / sqrt(2 × num_layers) to prevent
        activation explosion in deep models.
        """
        std         = self.config.hidden_size ** -0.5
        depth_scale = (2 * self.config.num_layers) ** -0.5

        for name, m in self.named_modules():
            if isinstance(m, nn.Linear):
                if "out" in name or "down" in name:
                    nn.init.trunc_normal_(
                        m.weight, std=std * depth_scale, a=-3 * std, b=3 * std
                    )
                else:
                    nn.init.trunc_normal_(m.weight, std=std, a=-3 * std, b=3 * std)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Embedding):
                nn.init.trunc_normal_(m.weight, std=std)

    # ── Internal forward pass ─────────────────────────────────────────────

    def _forward_blocks(
        self,
        x:              torch.Tensor,
        t_emb:          Optional[torch.Tensor],
        attn_bias:      Optional[torch.Tensor],
        self_cond:      Optional[torch.Tensor],
        use_checkpointing: bool = False,
        mask_positions: Optional[torch.Tensor] = None,
        t_frac:         float = 0.5,
    ) -> torch.Tensor:

        if self_cond is not None and self.self_cond_proj is not None:
            x = x + self.self_cond_proj(self_cond)

        if use_checkpointing:
            from torch.utils.checkpoint import checkpoint as ckpt_fn
            for block in self.blocks:
                fn = functools.partial(
                    block,
                    t_emb=t_emb, attn_bias=attn_bias,
                    mask_positions=mask_positions, t_frac=t_frac,
                )
                x = ckpt_fn(fn, x, use_reentrant=False)
        else:
            for block in self.blocks:
                x = block(
                    x, t_emb=t_emb, attn_bias=attn_bias,
                    mask_positions=mask_positions, t_frac=t_frac,
                )

        return self.norm(x)

    def _forward_blocks_dual(
        self,
        x:              torch.Tensor,
        t_emb:          Optional[torch.Tensor],
        attn_bias:      Optional[torch.Tensor],
        self_cond:      Optional[torch.Tensor],
        use_checkpointing: bool = False,
        mask_positions: Optional[torch.Tensor] = None,
        t_frac:         float = 0.5,
    ) -> tuple:
        """
        DS-PDLM dual-stream forward pass.

        v2.0.7: mask_positions and t_frac forwarded to G-Stream blocks only
        (MFS applies to G-Stream; U-Stream processes the prompt, no [MASK] tokens).
        TASA t_emb is forwarded to both streams via the block.forward signature.

        BUG FIX #Mo6: bridge_delta only allocated when bridge fires.
        """
        ds = self.dual_stream_config
        K  = ds.bridge_interval_K

        if self_cond is not None and self.self_cond_proj is not None:
            sc = self.self_cond_proj(self_cond)
            x  = x + sc

        h_u = x.clone()   # Understanding stream
        h_g = x           # Generation stream

        bridge_idx = 0

        for l, (block_g, block_u) in enumerate(zip(self.blocks, self.u_blocks)):
            if use_checkpointing:
                from torch.utils.checkpoint import checkpoint as ckpt_fn
                # U-Stream: no MFS (no masks in prompt)
                fn_u = functools.partial(block_u, t_emb=t_emb, attn_bias=attn_bias)
                h_u  = ckpt_fn(fn_u, h_u, use_reentrant=False)
                # BUG FIX #Mo6: only allocate bridge_delta when bridge fires
                if l % K == 0 and self.bridges is not None:
                    bridge_delta = self.bridges[bridge_idx](h_u)
                    bridge_idx   = min(bridge_idx + 1, len(self.bridges) - 1)
                    fn_g = functools.partial(
                        block_g, t_emb=t_emb, attn_bias=attn_bias,
                        mask_positions=mask_positions, t_frac=t_frac,
                    )
                    h_g = ckpt_fn(fn_g, h_g + bridge_delta, use_reentrant=False)
                else:
                    fn_g = functools.partial(
                        block_g, t_emb=t_emb, attn_bias=attn_bias,
                        mask_positions=mask_positions, t_frac=t_frac,
                    )
                    h_g = ckpt_fn(fn_g, h_g, use_reentrant=False)
            else:
                # U-Stream: no MFS (U-Stream processes prompt; no MASK tokens)
                h_u = block_u(h_u, t_emb=t_emb, attn_bias=attn_bias)
                # BUG FIX #Mo6: only allocate bridge_delta when bridge fires
                if l % K == 0 and self.bridges is not None:
                    bridge_delta = self.bridges[bridge_idx](h_u)
                    bridge_idx   = min(bridge_idx + 1, len(self.bridges) - 1)
                    h_g = block_g(
                        h_g + bridge_delta, t_emb=t_emb, attn_bias=attn_bias,
                        mask_positions=mask_positions, t_frac=t_frac,
                    )
                else:
                    h_g = block_g(
                        h_g, t_emb=t_emb, attn_bias=attn_bias,
                        mask_positions=mask_positions, t_frac=t_frac,
                    )

        g_out = self.norm(h_g)
        u_out = self.u_norm(h_u) if self.u_norm is not None else h_u
        return g_out, u_out

    def _logits(self, hidden: torch.Tensor) -> torch.Tensor:
        if self.lm_head is not None:
            return self.lm_head(hidden)
        return F.linear(hidden, self.embed.weight)

    # ── Forward ───────────────────────────────────────────────────────────

    def forward(
        self,
        input_ids:         torch.Tensor,
        attention_mask:    Optional[torch.Tensor] = None,
        timesteps:         Optional[torch.Tensor] = None,
        labels:            Optional[torch.Tensor] = None,
        self_cond:         Optional[torch.Tensor] = None,
        pixel_values:      Optional[torch.Tensor] = None,
        twe_alpha:         Optional[torch.Tensor] = None,
        twe_beta:          Optional[torch.Tensor] = None,
        twe_reliability_actual: Optional[torch.Tensor] = None,
        return_hidden:     bool = False,
        use_checkpointing: bool = False,
    ) -> OMGModelOutput:
        """
        Full forward pass — v2.0.6.

        New args vs v2.0.6:
            twe_alpha:   Knowledge age per token (B, T), range [0,1]. Optional.
                         Required for TWE attention modulation if twe_config.enabled.
            twe_beta:    Validation frequency per token (B, T), range [0,1]. Optional.
            twe_reliability_actual: Ground-truth R for temporal calibration loss (B, T).
                         If provided and TWE enabled, L_temporal is added to loss.

        BUG FIX #Mo1 (preserved): attn_bias kept in float32 with -1e9.
        BUG FIX #Mo3 (preserved): extra_len tracks prepended token offsets.

        Returns:
            OMGModelOutput with all v2.0.6 fields.
        """
        B, T = input_ids.shape

        x         = self.embed(input_ids)   # (B, T, C)
        extra_len = 0

        # Prepend prefix tokens (Feature #24)
        if self.prefix_tokens is not None:
            prefix     = self.prefix_tokens.expand(B, -1, -1)
            prefix_len = prefix.size(1)
            x          = torch.cat([prefix, x], dim=1)
            extra_len  += prefix_len
            if attention_mask is not None:
                prefix_mask    = torch.ones(B, prefix_len, device=x.device,
                                            dtype=attention_mask.dtype)
                attention_mask = torch.cat([prefix_mask, attention_mask], dim=1)

        # Prepend vision tokens (Feature #23)
        if pixel_values is not None and self.patch_embed is not None:
            vision_tokens = self.patch_embed(pixel_values)
            vis_len       = vision_tokens.size(1)
            x             = torch.cat([vision_tokens, x], dim=1)
            extra_len    += vis_len
            if attention_mask is not None:
                vis_mask       = torch.ones(B, vis_len, device=x.device,
                                            dtype=attention_mask.dtype)
                attention_mask = torch.cat([vis_mask, attention_mask], dim=1)

        # ── v2.0.6 Feature #TWE: inject temporal signal into embeddings ───────
        twe_reliability: Optional[torch.Tensor] = None
        twe_attn_extra:  Optional[torch.Tensor] = None

        if self.twe_embed is not None and twe_alpha is not None and twe_beta is not None:
            # Pad alpha/beta to match x length (extra prefix/vision tokens get neutral signal)
            if extra_len > 0:
                neutral = torch.full(
                    (B, extra_len), 0.5, device=x.device, dtype=twe_alpha.dtype
                )
                alpha_full = torch.cat([neutral, twe_alpha], dim=1)
                beta_full  = torch.cat([neutral, twe_beta],  dim=1)
            else:
                alpha_full = twe_alpha
                beta_full  = twe_beta

            x, twe_reliability = self.twe_embed(x, alpha_full, beta_full)

            # Build TWE additive attention bias (soft temporal discount)
            if self.twe_attn_bias is not None:
                twe_attn_extra = self.twe_attn_bias(twe_reliability)   # (B,1,1,T_full)

        # Learned positional encoding
        if self.pos_enc is not None:
            x = self.pos_enc(x)

        # Timestep embedding
        t_emb: Optional[torch.Tensor] = None
        if timesteps is not None:
            t_emb = self.time_emb(timesteps)

        # BUG FIX #Mo1: build attn_bias in float32 with -1e9
        attn_bias: Optional[torch.Tensor] = None
        if attention_mask is not None:
            seq_len = x.size(1)
            mask_2d = attention_mask
            if mask_2d.size(1) != seq_len:
                diff = seq_len - mask_2d.size(1)
                if diff > 0:
                    mask_2d = F.pad(mask_2d, (0, diff), value=1)
                else:
                    mask_2d = mask_2d[:, :seq_len]
            attn_bias = (
                (1.0 - mask_2d.float()).unsqueeze(1).unsqueeze(2) * -1e9
            )  # (B, 1, 1, seq_len), float32

        # Add TWE attention bias to standard padding bias
        if twe_attn_extra is not None:
            if attn_bias is not None:
                attn_bias = attn_bias + twe_attn_extra
            else:
                attn_bias = twe_attn_extra

        use_ckpt = (
            getattr(self, '_use_gradient_checkpointing', False)
            or use_checkpointing
        )

        # ── v2.0.7 MFS: build mask_positions for this forward pass ────────────
        # mask_positions is a bool tensor: True at [MASK] token positions.
        # Passed to every OMGBlock so MFSLayer can skip/proxy FFN for those slots.
        # Only built if mfs_config is enabled to avoid overhead when disabled.
        mfs_mask_positions: Optional[torch.Tensor] = None
        mfs_t_frac: float = 0.5
        mfs_cfg = getattr(self.config, "mfs_config", None)
        if mfs_cfg is not None and mfs_cfg.enabled:
            mfs_mask_positions = (input_ids == self.config.mask_token_id)
            # t_frac: t / T_max for INTERPOLATED mode (needed even if t_emb present)
            if timesteps is not None:
                T_steps = getattr(self.config, "num_diffusion_steps", 10)
                mfs_t_frac = float((timesteps.float().mean() / max(T_steps, 1)).clamp(0.0, 1.0).item())
            # Pad mask if prefix/vision tokens were prepended (extra_len positions)
            if extra_len > 0 and mfs_mask_positions is not None:
                pad = torch.zeros(B, extra_len, dtype=torch.bool, device=mfs_mask_positions.device)
                mfs_mask_positions = torch.cat([pad, mfs_mask_positions], dim=1)

        # ── v2.0.6 Feature #DS-PDLM: dual-stream forward ─────────────────────
        u_hidden: Optional[torch.Tensor] = None

        if (self.dual_stream_config is not None
                and self.dual_stream_config.enabled
                and self.u_blocks is not None):
            hidden, u_hidden = self._forward_blocks_dual(
                x, t_emb, attn_bias, self_cond,
                use_checkpointing=use_ckpt,
                mask_positions=mfs_mask_positions,
                t_frac=mfs_t_frac,
            )
        else:
            hidden = self._forward_blocks(
                x, t_emb, attn_bias, self_cond,
                use_checkpointing=use_ckpt,
                mask_positions=mfs_mask_positions,
                t_frac=mfs_t_frac,
            )

        # BUG FIX #Mo3: use explicit extra_len for clean slicing
        hidden_text = hidden[:, extra_len:, :]    # (B, T, C)
        u_hidden_text = u_hidden[:, extra_len:, :] if u_hidden is not None else None

        # ── v2.0.6 Feature #NCA: Creative Mode routing ────────────────────────
        creative_out = None
        if self.nca_router is not None:
            # Use U-Stream mean-pooled state as request embedding if available
            # (DS-PDLM + NCA integration: U-Stream feeds ND directly)
            if u_hidden_text is not None:
                request_emb = u_hidden_text.mean(dim=1)   # (B, C)
            else:
                request_emb = hidden_text.mean(dim=1)     # (B, C)

            standard_emb = hidden_text.mean(dim=1)        # (B, C)
            creative_out = self.nca_router(request_emb, standard_emb)

            # If Creative Mode produced a latent vector, use it as the hidden
            # representation for a single "idea token" prepended to the output.
            # The standard hidden_text is preserved; the creative vector is
            # an additional conditioning signal for downstream verbalization.
            # (Full verbalization pipeline is handled by the caller / generation loop.)

        logits = self._logits(hidden_text)   # (B, T, V)

        # ── Loss computation ──────────────────────────────────────────────────
        loss: Optional[torch.Tensor] = None
        if labels is not None:
            mask = labels != self.config.pad_token_id
            if mask.any():
                loss = F.cross_entropy(
                    logits[mask].float(),
                    labels[mask],
                    reduction="mean",
                )

            # DS-PDLM auxiliary U-Stream MLM loss
            if (u_hidden_text is not None
                    and self.dual_stream_config is not None
                    and self.dual_stream_config.u_stream_aux_lambda > 0.0):
                u_logits   = self._logits(u_hidden_text)
                u_loss     = F.cross_entropy(
                    u_logits[mask].float(), labels[mask], reduction="mean"
                )
                aux_lambda = self.dual_stream_config.u_stream_aux_lambda
                loss       = loss + aux_lambda * u_loss if loss is not None else aux_lambda * u_loss

            # TWE temporal calibration loss
            if (twe_reliability is not None
                    and twe_reliability_actual is not None
                    and hasattr(self, '_twe_cal_loss')):
                # Slice to text region for loss computation
                r_pred = twe_reliability[:, extra_len:]
                t_loss = self._twe_cal_loss(r_pred, twe_reliability_actual, mask)
                loss   = loss + t_loss if loss is not None else t_loss

        # ── Pooled output (Feature #20) ───────────────────────────────────────
        pooled: Optional[torch.Tensor] = None
        if self.pooling_head is not None:
            orig_mask = attention_mask[:, extra_len:] if attention_mask is not None else None
            pooled    = self.pooling_head(hidden_text, orig_mask)

        # ── TWE output reliability score ──────────────────────────────────────
        output_reliability: Optional[torch.Tensor] = None
        if twe_reliability is not None:
            from kolmgformers.twe import compute_output_reliability
            output_reliability = compute_output_reliability(
                twe_reliability[:, extra_len:]
            )

        return OMGModelOutput(
            logits            = logits,
            last_hidden_state = hidden_text if return_hidden else None,
            loss              = loss,
            pooled_output     = pooled,
            aux_loss          = self._collect_moe_aux_loss(),
            u_stream_hidden   = u_hidden_text if return_hidden else None,
            output_reliability= output_reliability,
            creative_output   = creative_out,
            tasa_sparsity     = self._collect_tasa_sparsity(),
            mfs_skip_ratio    = self._collect_mfs_skip_ratio(mfs_mask_positions, input_ids.shape[1]),
        )
    # ── Helper methods ────────────────────────────────────────────────────

    def get_soft_embedding(self, logits: torch.Tensor) -> torch.Tensor:
        """
        Compute soft token embeddings from logit distributions.

        Used for self-conditioning: instead of hard argmax tokens,
        we compute a weighted average of all token embeddings according to
        the softmax distribution.  This is differentiable and conveys
        uncertainty information to the next diffusion step.

        Args:
            logits: Token logits, shape (B, T, V).

        Returns:
            Soft embedding, shape (B, T, C).
        """
        probs = F.softmax(logits.detach().float(), dim=-1)   # (B, T, V)
        return torch.matmul(probs, self.embed.weight.float()).to(logits.dtype)

    @torch.no_grad()
    def generate(
        self,
        prompt_ids:   torch.Tensor,
        new_tokens:   int   = 128,
        steps:        int   = 10,
        temperature:  float = 1.0,
        top_k:        int   = 0,
        top_p:        float = 1.0,
        remask_prob:  float = 0.0,
        show_steps:   bool  = False,
        use_di:       bool  = False,
    ) -> torch.Tensor:
        """
        Convenience generation method — no external MaskScheduler needed.

        Creates a default MaskScheduler and ParallelDecoder internally.

        BUG FIX #Mo7: model is now guaranteed to run in eval mode during
        generation, preventing dropout + stochastic depth from corrupting
        quality when called on a training-mode model. Original training state
        is restored after generation.

        Args:
            prompt_ids:  Prompt token IDs, shape (B, P) or (P,).
            new_tokens:  Number of tokens to generate.
            steps:       Number of diffusion steps.
            temperature: Sampling temperature (1.0 = unchanged).
            top_k:       Top-K filtering (0 = disabled).
            top_p:       Nucleus filtering (1.0 = disabled).
            remask_prob: Probability of re-masking low-confidence tokens.
            show_steps:  Print step-by-step unmasking progress.
            use_di:      Enable Delta Inference (requires di_config in OMGConfig).

        Returns:
            Generated token IDs, shape (B, P + new_tokens).
        """
        from kolmgformers.diffusion import MaskScheduler, ParallelDecoder

        # BUG FIX #Mo7: ensure eval mode, restore afterwards
        was_training = self.training
        self.eval()
        try:
            sched   = MaskScheduler(
                steps             = steps,
                schedule          = self.config.mask_schedule,
                mask_token_id     = self.config.mask_token_id,
                pad_token_id      = self.config.pad_token_id,
                vocab_size        = self.config.vocab_size,
                random_token_prob = self.config.random_token_prob,
            )
            decoder = ParallelDecoder(self, sched)

            # Delta Inference: attach DeltaCache to decoder if requested
            di_cache = None
            if use_di and _DI_AVAILABLE:
                di_cfg   = getattr(self.config, "di_config", None)
                di_cache = DeltaCache(di_cfg or DIConfig(enabled=True))

            return decoder.generate(
                prompt_ids,
                new_tokens  = new_tokens,
                steps       = steps,
                temperature = temperature,
                top_k       = top_k,
                top_p       = top_p,
                remask_prob = remask_prob,
                show_steps  = show_steps,
                di_cache    = di_cache,
            )
        finally:
            if was_training:
                self.train()

    # ── Feature #26 : Classifier-Free Guidance ────────────────────────────

    @torch.no_grad()
    def generate_cfg(
        self,
        prompt_ids:  torch.Tensor,
        uncond_ids:  torch.Tensor,
        cfg_scale:   float = 3.0,
        new_tokens:  int   = 128,
        steps:       int   = 10,
        temperature: float = 1.0,
    ) -> torch.Tensor:
        """
        Feature #26 — Classifier-Free Guidance (CFG) generation.

        Computes logits for both the conditioned and unconditioned prompts,
        then combines them:

            logits_cfg = logits_uncond + scale × (logits_cond - logits_uncond)

        BUG FIX #Mo4: _cosine_counts is now imported from diffusion to avoid
        NameError at runtime.

        Args:
            prompt_ids:  Conditioned prompt token IDs, shape (B, P) or (P,).
            uncond_ids:  Unconditioned prompt (empty/generic), same shape.
            cfg_scale:   Guidance scale (1.0 = no guidance, 3–7 = typical).
            new_tokens:  Number of tokens to generate.
            steps:       Number of diffusion steps.
            temperature: Sampling temperature.

        Returns:
            Generated token IDs, shape (B, P + new_tokens).
        """
        # BUG FIX #Mo4: import from diffusion, not local scope
        from kolmgformers.diffusion import MaskScheduler, _cosine_counts

        if prompt_ids.dim() == 1:
            prompt_ids = prompt_ids.unsqueeze(0)
            uncond_ids = uncond_ids.unsqueeze(0)

        device  = next(self.parameters()).device
        B, P    = prompt_ids.shape
        N       = new_tokens
        mask_id = self.config.mask_token_id

        cond_seq = torch.cat([
            prompt_ids.to(device),
            torch.full((B, N), mask_id, dtype=torch.long, device=device),
        ], dim=1)
        uncond_seq = torch.cat([
            uncond_ids.to(device),
            torch.full((B, N), mask_id, dtype=torch.long, device=device),
        ], dim=1)

        counts = _cosine_counts(N, steps)
        # BUG FIX #Mo7: use try/finally to restore training state after generation
        was_training = self.training
        self.eval()
        try:
            for step in range(steps):
                t = torch.full((B,), steps - step, dtype=torch.long, device=device)

                cond_out   = self(cond_seq,   timesteps=t)
                uncond_out = self(uncond_seq, timesteps=t)

                cond_log   = cond_out.logits[:, P:, :]
                uncond_log = uncond_out.logits[:, P:, :]
                logits_cfg = uncond_log + cfg_scale * (cond_log - uncond_log)

                if temperature != 1.0:
                    logits_cfg = logits_cfg / max(temperature, 1e-8)
                logits_cfg[..., mask_id] = float("-inf")

                probs = F.softmax(logits_cfg, dim=-1)
                pred  = torch.multinomial(probs.reshape(B * N, -1), 1).reshape(B, N)
                conf  = probs.gather(-1, pred.unsqueeze(-1)).squeeze(-1)

                still_masked = cond_seq[:, P:] == mask_id
                conf_masked  = conf.masked_fill(~still_masked, -1.0)
                n_unmask     = min(counts[step], int(still_masked.sum(-1).max().item()))

                if n_unmask > 0:
                    _, top_idx = conf_masked.topk(n_unmask, dim=-1)
                    umask      = torch.zeros(B, N, dtype=torch.bool, device=device)
                    umask.scatter_(1, top_idx, True)
                    umask = umask & still_masked
                    # BUG FIX #12 (v2.0.7): uncond_seq must use tokens predicted
                    # by its own uncond forward pass, not by the cond forward pass.
                    # In CFG each stream must evolve independently so the guidance
                    # direction stays meaningful every step.
                    uncond_probs = F.softmax(
                        uncond_log / max(temperature, 1e-8) if temperature != 1.0 else uncond_log,
                        dim=-1,
                    )
                    uncond_probs[..., mask_id] = 0.0
                    uncond_pred = torch.multinomial(
                        uncond_probs.reshape(B * N, -1).clamp(min=0), 1
                    ).reshape(B, N)
                    cond_seq[:, P:]   = torch.where(umask, pred,        cond_seq[:, P:])
                    uncond_seq[:, P:] = torch.where(umask, uncond_pred, uncond_seq[:, P:])

                if step == steps - 1:
                    remaining = cond_seq[:, P:] == mask_id
                    cond_seq[:, P:] = torch.where(remaining, pred, cond_seq[:, P:])

            return cond_seq
        finally:
            if was_training:
                self.train()

    # ── TWE temporal calibration loss (v2.0.7) ───────────────────────────────

    def _twe_cal_loss(
        self,
        r_pred:   "torch.Tensor",
        r_actual: "torch.Tensor",
        mask:     Optional["torch.Tensor"] = None,
    ) -> "torch.Tensor":
        """
        Bug Fix #10 (v2.0.7): TWE temporal calibration loss.

        Previously this method was referenced as ``hasattr(self, '_twe_cal_loss')``
        in forward() but never defined, so the calibration loss was silently never
        computed. Now implemented as a thin wrapper around TemporalCalibrationLoss.

        Args:
            r_pred:   Predicted reliability, shape (B, T).
            r_actual: Ground-truth reliability, shape (B, T).
            mask:     Optional valid-token mask (1=valid), shape (B, T).

        Returns:
            Scalar calibration loss tensor.
        """
        if not _TWE_AVAILABLE:
            return torch.zeros(1, device=r_pred.device, dtype=r_pred.dtype)

        from kolmgformers.twe import TemporalCalibrationLoss
        twe_cfg = getattr(self.config, "twe_config", None)
        if twe_cfg is None:
            return torch.zeros(1, device=r_pred.device, dtype=r_pred.dtype)

        if not hasattr(self, "_twe_cal_loss_module"):
            self._twe_cal_loss_module = TemporalCalibrationLoss(twe_cfg).to(r_pred.device)

        return self._twe_cal_loss_module(r_pred, r_actual, mask)

    # ── Metric collection helpers (v2.0.7) ───────────────────────────────────

    def _collect_moe_aux_loss(self) -> Optional[torch.Tensor]:
        """
        Bug Fix #2 (v2.0.7): Collect and return the accumulated MoE auxiliary
        load-balancing loss from all MoE blocks.

        Each MoEBlock accumulates its aux_loss into block._last_aux_loss during
        the forward pass. We sum them here so the training loop can add them to
        the main loss for load balancing.

        Returns:
            Scalar aux_loss tensor if MoE is enabled and losses were accumulated,
            None otherwise.
        """
        if not self.config.use_moe:
            return None

        aux_losses = []
        for block in self.blocks:
            # OMGBlock exposes _last_aux_loss when its ffn is a MoE layer
            last = getattr(block, "_last_aux_loss", None)
            if last is not None:
                aux_losses.append(last)

        if not aux_losses:
            return None

        total = aux_losses[0]
        for a in aux_losses[1:]:
            total = total + a
        return total

    def _collect_tasa_sparsity(self) -> Optional[float]:
        """
        Bug Fix #1 (v2.0.7): Return the mean TASA sparsity level across all
        blocks that have a TASA gating network.

        Each attention module stores _last_tasa_sparsity after its forward.

        Returns:
            Mean sparsity float in [0, 1], or None if TASA is not enabled.
        """
        tasa_cfg = getattr(self.config, "tasa_config", None)
        if tasa_cfg is None or not getattr(tasa_cfg, "enabled", False):
            return None

        vals = []
        for block in self.blocks:
            attn = getattr(block, "attn", None)
            if attn is not None:
                v = getattr(attn, "_last_tasa_sparsity", None)
                if v is not None:
                    vals.append(v)

        return float(sum(vals) / len(vals)) if vals else None

    def _collect_mfs_skip_ratio(
        self,
        mfs_mask_positions: Optional[torch.Tensor],
        seq_len: int,
    ) -> Optional[float]:
        """
        Bug Fix #1 (v2.0.7): Compute and return the fraction of FFN token
        computations skipped by MFS during this forward pass.

        The skip ratio is computed from mfs_mask_positions (the [MASK] token
        boolean mask built earlier in forward).  In SKIP mode all masked tokens
        skip FFN entirely; in PROXY/INTERPOLATED modes the ratio is the same.

        Returns:
            Float in [0, 1] representing the FFN skip ratio, or None if MFS
            is not enabled.
        """
        mfs_cfg = getattr(self.config, "mfs_config", None)
        if mfs_cfg is None or not getattr(mfs_cfg, "enabled", False):
            return None
        if mfs_mask_positions is None:
            return 0.0

        n_total  = mfs_mask_positions.numel()
        n_masked = int(mfs_mask_positions.sum().item())
        return float(n_masked) / max(n_total, 1)

    # ── Parameter counting ────────────────────────────────────────────────

    def num_parameters(self, trainable_only: bool = False) -> int:
        """
        Count actual model parameters.

        Args:
            trainable_only: If True, count only requires_grad=True parameters.

        Returns:
            Total parameter count.
        """
        return sum(
            p.numel()
            for p in self.parameters()
            if not trainable_only or p.requires_grad
        )

    # ── Feature #28 : Save / Load pretrained ─────────────────────────────

    def save_pretrained(self, directory: str) -> None:
        """
        Save model weights and config to a directory.

        Saves using safetensors if available (faster, safer),
        otherwise falls back to torch.save.

        Args:
            directory: Target directory path (created if it doesn't exist).
        """
        os.makedirs(directory, exist_ok=True)
        self.config.save(directory)

        try:
            from safetensors.torch import save_file
            save_file(self.state_dict(), os.path.join(directory, "model.safetensors"))
            print(f"[kolmgformers] Saved → {directory}  (safetensors)")
        except ImportError:
            torch.save(self.state_dict(), os.path.join(directory, "model.pt"))
            print(f"[kolmgformers] Saved → {directory}  (.pt)")

    @classmethod
    def from_pretrained(
        cls,
        directory:    str,
        map_location: str  = "cpu",
        strict:       bool = True,
        **kwargs,
    ) -> "OMGModel":
        """
        Load a saved OMGModel from a directory.

        Tries safetensors first, then .pt file.

        Args:
            directory:    Directory containing config.json and weights.
            map_location: Device to load weights onto.
            strict:       If False, allows missing/unexpected keys.
            **kwargs:     Override config fields.

        Returns:
            Loaded OMGModel instance.
        """
        config = OMGConfig.load(directory, **kwargs)
        model  = cls(config)

        st_path = os.path.join(directory, "model.safetensors")
        pt_path = os.path.join(directory, "model.pt")

        if os.path.exists(st_path):
            try:
                from safetensors.torch import load_file
                state = load_file(st_path, device=map_location)
            except ImportError:
                # safetensors not installed — fall through to .pt fallback
                if os.path.exists(pt_path):
                    state = torch.load(pt_path, map_location=map_location, weights_only=True)
                else:
                    raise FileNotFoundError(
                        f"'safetensors' package is not installed and no model.pt found in "
                        f"'{directory}'. Install safetensors or provide a model.pt file."
                    )
            # Note: non-ImportError exceptions (e.g. corrupt file) propagate — BUG FIX #16 (v2.0.7)
        elif os.path.exists(pt_path):
            state = torch.load(pt_path, map_location=map_location, weights_only=True)
        else:
            raise FileNotFoundError(
                f"No model weights found in '{directory}'. "
                "Expected model.safetensors or model.pt."
            )

        missing, unexpected = model.load_state_dict(state, strict=strict)
        if missing:
            print(f"[kolmgformers] Warning: {len(missing)} missing keys.")
        if unexpected:
            print(f"[kolmgformers] Warning: {len(unexpected)} unexpected keys.")
        print(f"[kolmgformers] Loaded ← {directory} ✓")
        return model
