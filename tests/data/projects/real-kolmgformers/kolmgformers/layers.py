"""
kolmgformers/layers.py  v2.0.6-BETA
=====================================
Core layer building blocks for OMGFormer.

New in v2.0.6-BETA
---------------------
Feature #53 — Fast base model initialization helpers (create_base_model)
              Layers now support ``reset_parameters()`` for guaranteed-clean
              weight initialization so create_base_model produces a fully
              deterministic empty base model with no silent zero-weight traps.

Bug fixes over v2.0.5-BETA
---------------------------
BUG FIX #L1 — OMGBlock._forward_adaLN: gate.tanh() was multiplied against
               the attention/FFN output BEFORE the residual add, but the
               AdaLN-Zero paper (DiT) specifies the gate should scale the
               residual branch, not the pre-residual value.  In practice the
               difference is small at init (tanh(0)=0 ≡ zero-init) but grows
               during training.  The operation is now:
                   x = x + drop_path(gate.tanh() * sub_layer(normed_x))
               which matches the reference implementation exactly.

BUG FIX #L2 — SelfCondProjection: the zero-init of proj[-1].weight was
               applied to the weight BEFORE the module was moved to device
               via .to() / .cuda().  If the model was constructed on CPU and
               then moved, this was fine; but if OMGConfig.device was used
               inside __init__ to place tensors, the zero-init ran on the
               wrong device and the parameter could retain random values.
               Fixed: zero-init is now applied inside __init__ AFTER the
               nn.Sequential is built (device-independent).

BUG FIX #L3 — TokenMerge.forward: the keep_mask.nonzero branch used an
               intermediate variable ``keep_idx`` that was never consumed
               (dead code left over from the v2.0.5 refactor).  More
               critically, for batches where different items have different
               numbers of masked tokens (ragged keep), the reshape
               ``tgt_x[keep_mask].reshape(B, n_keep, C)`` would silently
               produce wrong results whenever item i had fewer than n_keep
               kept tokens.  Fixed with a per-item gather that is safe for
               ragged batches.

BUG FIX #L4 — build_ffn: the ``"mish"`` activation string was accepted by
               StandardFFN._get_act but was NOT a recognised key in
               build_ffn's dispatch table, so build_ffn raised ValueError
               for valid ``ffn_type="mish"`` configs.  Fixed by forwarding
               any unrecognised non-gated string to StandardFFN (which
               validates internally), rather than raising early.

BUG FIX #L5 — OMGBlock.forward: ``self._warned_temb`` was an instance flag,
               meaning the warning fires once PER BLOCK PER MODEL, producing
               hundreds of identical warnings in a 32-layer model.  Replaced
               with a module-level set keyed by ``id(self)`` so the warning
               fires exactly once globally.

Features (unchanged from v2.0.5)
---------------------------------
Feature #11 — GeGLU activation variant
Feature #12 — ReGLU activation variant
Feature #13 — Mish activation variant
Feature #14 — Pre-norm vs Post-norm configurable
Feature #15 — Stochastic depth (layer drop during training)
Feature #16 — Token Merging (ToMe) for inference speedup
Feature #17 — ScaleNorm normalization
Feature #18 — Learnable positional embeddings

Carried from v2.0.5-BETA (still present)
-----------------------------------------
BUG FIX #P1 — TokenMerge: merge now runs at eval time (primary use case)
BUG FIX #P2 — TokenMerge: vectorized scatter/gather, compile-friendly
BUG FIX #P3 — OMGBlock: warns when t_emb passed but use_adaLN=False
"""

from __future__ import annotations

import math
import warnings
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from kolmgformers.configuration import OMGConfig
from kolmgformers.attention import build_attention

# ── v2.0.7 MFS lazy import ───────────────────────────────────────────────────
_MFS_MOD = None

def _get_mfs():
    global _MFS_MOD
    if _MFS_MOD is None:
        try:
            import kolmgformers.mfs as _m
            _MFS_MOD = _m
        except ImportError:
            pass
    return _MFS_MOD


__all__ = [
    # Normalization
    "RMSNorm",
    "ScaleNorm",
    "build_norm",
    # Activations / FFN
    "SwiGLUFFN",
    "GeGLUFFN",
    "ReGLUFFN",
    "StandardFFN",
    "build_ffn",
    # AdaLN
    "AdaLNModulation",
    # Self-conditioning
    "SelfCondProjection",
    # Positional
    "LearnedPositionalEmbedding",
    # Regularization
    "StochasticDepth",
    "TokenMerge",
    # Block
    "OMGBlock",
]

# Module-level set for BUG FIX #L5: track which OMGBlock instances have warned.
_warned_temb_ids: set[int] = set()


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Normalization ─────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class RMSNorm(nn.Module):
    """
    Root Mean Square Layer Normalization (Zhang & Sennrich, 2019).

    Normalizes by RMS rather than mean+variance, removing the mean-centering
    operation.  Typically 10–20% faster than LayerNorm and works equally well
    in practice for transformer models.

    Args:
        dim: Feature dimension.
        eps: Numerical stability epsilon.
    """

    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps    = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def reset_parameters(self) -> None:
        """Feature #53: deterministic re-init for create_base_model."""
        nn.init.ones_(self.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_f = x.float()
        rms = x_f.pow(2).mean(-1, keepdim=True).add(self.eps).rsqrt()
        return (x_f * rms).to(x.dtype) * self.weight


class ScaleNorm(nn.Module):
    """
    ScaleNorm (Nguyen & Salazar, 2019).

    Simpler than LayerNorm/RMSNorm: normalizes by L2 norm, scales by a
    single learnable scalar.  Fewer parameters than RMSNorm.

    Args:
        dim: Feature dimension (used to initialize scale).
        eps: Numerical stability epsilon.
    """

    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps   = eps
        self.dim   = dim
        self.scale = nn.Parameter(torch.tensor(dim ** 0.5))

    def reset_parameters(self) -> None:
        """Feature #53: deterministic re-init."""
        with torch.no_grad():
            self.scale.fill_(self.dim ** 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        norm = x.float().norm(dim=-1, keepdim=True).clamp(min=self.eps)
        return (x.float() / norm * self.scale).to(x.dtype)


def build_norm(norm_type: str, dim: int, eps: float = 1e-6) -> nn.Module:
    """
    Build a normalization layer from a type string.

    Accepts both long-form config values and short aliases::

        "rmsnorm" | "rms"       → RMSNorm
        "layernorm" | "layer"   → nn.LayerNorm
        "scalenorm" | "scale"   → ScaleNorm

    Args:
        norm_type: Normalization type string (from OMGConfig.norm_type).
        dim:       Feature dimension.
        eps:       Numerical stability epsilon.

    Returns:
        Instantiated normalization module.
    """
    if norm_type in ("rms", "rmsnorm"):
        return RMSNorm(dim, eps)
    if norm_type in ("layer", "layernorm"):
        return nn.LayerNorm(dim, eps=eps)
    if norm_type in ("scale", "scalenorm"):
        return ScaleNorm(dim, eps)
    raise ValueError(
        f"Unknown norm_type '{norm_type}'. "
        "Choose: rmsnorm | layernorm | scalenorm."
    )


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #11–13 : FFN with activation variants ────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class SwiGLUFFN(nn.Module):
    """
    SwiGLU FFN (Noam Shazeer, 2020).

    Gated variant: output = down(silu(gate(x)) * up(x))
    No bias on any projection (consistent with LLaMA/Mistral style).

    This is the default and best-performing activation for large language
    models as of 2024.

    Args:
        config: OMGConfig instance.
    """

    def __init__(self, config: OMGConfig):
        super().__init__()
        C, I = config.hidden_size, config.intermediate_size
        self.gate = nn.Linear(C, I, bias=False)
        self.up   = nn.Linear(C, I, bias=False)
        self.down = nn.Linear(I, C, bias=False)
        self.drop = nn.Dropout(config.dropout)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Feature #53: deterministic re-init."""
        std = self.gate.in_features ** -0.5
        nn.init.trunc_normal_(self.gate.weight, std=std)
        nn.init.trunc_normal_(self.up.weight,   std=std)
        nn.init.zeros_(self.down.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(self.drop(F.silu(self.gate(x)) * self.up(x)))


class GeGLUFFN(nn.Module):
    """
    Feature #11 — GeGLU FFN (Noam Shazeer, 2020).

    Gated variant using Gaussian Error Linear Unit:
        output = down(gelu(gate(x)) * up(x))

    GeGLU and SwiGLU perform comparably on most tasks; GeGLU may have
    a slight edge on tasks requiring smooth, near-Gaussian outputs.

    Args:
        config: OMGConfig instance.
    """

    def __init__(self, config: OMGConfig):
        super().__init__()
        C, I = config.hidden_size, config.intermediate_size
        self.gate = nn.Linear(C, I, bias=False)
        self.up   = nn.Linear(C, I, bias=False)
        self.down = nn.Linear(I, C, bias=False)
        self.drop = nn.Dropout(config.dropout)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        std = self.gate.in_features ** -0.5
        nn.init.trunc_normal_(self.gate.weight, std=std)
        nn.init.trunc_normal_(self.up.weight,   std=std)
        nn.init.zeros_(self.down.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(self.drop(F.gelu(self.gate(x)) * self.up(x)))


class ReGLUFFN(nn.Module):
    """
    Feature #12 — ReGLU FFN (Noam Shazeer, 2020).

    Gated variant using ReLU activation:
        output = down(relu(gate(x)) * up(x))

    ReGLU is sparser than SwiGLU/GeGLU due to hard zeroing from ReLU.
    This can reduce computation in sparsity-aware inference engines.

    Args:
        config: OMGConfig instance.
    """

    def __init__(self, config: OMGConfig):
        super().__init__()
        C, I = config.hidden_size, config.intermediate_size
        self.gate = nn.Linear(C, I, bias=False)
        self.up   = nn.Linear(C, I, bias=False)
        self.down = nn.Linear(I, C, bias=False)
        self.drop = nn.Dropout(config.dropout)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        std = self.gate.in_features ** -0.5
        nn.init.trunc_normal_(self.gate.weight, std=std)
        nn.init.trunc_normal_(self.up.weight,   std=std)
        nn.init.zeros_(self.down.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(self.drop(F.relu(self.gate(x)) * self.up(x)))


class StandardFFN(nn.Module):
    """
    Standard two-layer FFN with configurable activation.

    Used for activations that don't have a gating variant:
    gelu, silu, mish.

    Args:
        config: OMGConfig instance (uses config.ffn_type to select activation).
    """

    _ACT_MAP = {
        "gelu":     F.gelu,
        "standard": F.gelu,   # "standard" defaults to gelu
        "silu":     F.silu,
        "mish":     F.mish,   # Feature #13
    }

    def __init__(self, config: OMGConfig):
        super().__init__()
        C, I = config.hidden_size, config.intermediate_size
        self.up   = nn.Linear(C, I, bias=False)
        self.down = nn.Linear(I, C, bias=False)
        self.drop = nn.Dropout(config.dropout)
        act_name  = config.ffn_type
        if act_name not in self._ACT_MAP:
            raise ValueError(
                f"StandardFFN: unknown activation '{act_name}'. "
                f"Choose: {list(self._ACT_MAP)}."
            )
        self._act = self._ACT_MAP[act_name]
        self.reset_parameters()

    def reset_parameters(self) -> None:
        std = self.up.in_features ** -0.5
        nn.init.trunc_normal_(self.up.weight,   std=std)
        nn.init.zeros_(self.down.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(self.drop(self._act(self.up(x))))


def build_ffn(config: OMGConfig) -> nn.Module:
    """
    Build the correct FFN from config.ffn_type.

    BUG FIX #L4: Unknown non-gated strings are forwarded to StandardFFN
    (which validates internally) instead of raising early, so valid but
    uncommon activation names like "mish" work correctly.

    Dispatch::

        "swiglu"   → SwiGLUFFN
        "geglu"    → GeGLUFFN    (Feature #11)
        "reglu"    → ReGLUFFN    (Feature #12)
        "standard" → StandardFFN (gelu)
        "gelu"     → StandardFFN (Feature #13 path)
        "silu"     → StandardFFN
        "mish"     → StandardFFN (Feature #13)

    Args:
        config: OMGConfig instance.

    Returns:
        Instantiated FFN module.
    """
    act = config.ffn_type
    if act == "swiglu":
        return SwiGLUFFN(config)
    if act == "geglu":
        return GeGLUFFN(config)
    if act == "reglu":
        return ReGLUFFN(config)
    # BUG FIX #L4: forward everything else to StandardFFN for validation
    return StandardFFN(config)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── AdaLN-Zero Modulation ────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class AdaLNModulation(nn.Module):
    """
    AdaLN-Zero conditioning (from DiT, Peebles & Xie 2022).

    Decomposes the timestep embedding into 6 modulation vectors:
        (scale_attn, shift_attn, gate_attn, scale_ffn, shift_ffn, gate_ffn)

    Gates are zero-initialized → the block is the identity at init,
    which greatly stabilizes training of deep diffusion models.

    Args:
        hidden_size: Model hidden dimension.
    """

    def __init__(self, hidden_size: int):
        super().__init__()
        self.act  = nn.SiLU()
        self.proj = nn.Linear(hidden_size, 6 * hidden_size, bias=True)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Feature #53: re-init to zero (identity gate at start)."""
        nn.init.zeros_(self.proj.weight)
        nn.init.zeros_(self.proj.bias)

    def forward(self, t_emb: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """
        Args:
            t_emb: Timestep embedding of shape (B, C).

        Returns:
            Tuple of 6 tensors, each (B, 1, C):
            scale_attn, shift_attn, gate_attn, scale_ffn, shift_ffn, gate_ffn.
        """
        mods = self.proj(self.act(t_emb)).unsqueeze(1)   # (B, 1, 6C)
        return mods.chunk(6, dim=-1)                      # 6 × (B, 1, C)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Self-Conditioning Projection ─────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class SelfCondProjection(nn.Module):
    """
    Self-conditioning projection for iterative refinement.

    Projects the soft embedding from the previous diffusion step into the
    hidden space, allowing the model to condition on its own previous
    predictions and refine them iteratively.

    BUG FIX #L2: Zero-init of proj[-1].weight is now device-independent
    (applied after the nn.Sequential is built, before any device move).

    Args:
        config: OMGConfig instance.
    """

    def __init__(self, config: OMGConfig):
        super().__init__()
        C = config.hidden_size
        self.proj = nn.Sequential(
            nn.Linear(C, C, bias=False),
            nn.SiLU(),
            nn.Linear(C, C, bias=False),
        )
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Feature #53 + BUG FIX #L2: zero-init output projection."""
        std = self.proj[0].in_features ** -0.5
        nn.init.trunc_normal_(self.proj[0].weight, std=std)
        nn.init.zeros_(self.proj[2].weight)   # BUG FIX #L2: always applied here

    def forward(self, soft_emb: torch.Tensor) -> torch.Tensor:
        """
        Args:
            soft_emb: Soft embedding from previous step, shape (B, T, C).

        Returns:
            Projected embedding of shape (B, T, C).
        """
        return self.proj(soft_emb)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #18 : Learnable Positional Embeddings ────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class LearnedPositionalEmbedding(nn.Module):
    """
    Learnable absolute positional embeddings (BERT-style).

    Unlike RoPE or ALiBi, these are directly learned lookup tables.
    They are simple and effective for tasks where the model always sees
    sequences up to a fixed maximum length.

    Does NOT generalize beyond max_length (unlike RoPE).  Use RoPE or
    ALiBi if you need length generalization.

    Args:
        max_length:  Maximum sequence length.
        hidden_size: Embedding dimension.
        dropout:     Dropout applied after adding positional embeddings.
    """

    def __init__(self, max_length: int, hidden_size: int, dropout: float = 0.0):
        super().__init__()
        self.embedding = nn.Embedding(max_length, hidden_size)
        self.dropout   = nn.Dropout(dropout)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Feature #53: deterministic re-init."""
        nn.init.trunc_normal_(self.embedding.weight, std=0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Add positional embeddings to token embeddings.

        Args:
            x: Token embeddings of shape (B, T, C).

        Returns:
            x + positional embeddings, shape (B, T, C).
        """
        T   = x.size(1)
        pos = torch.arange(T, device=x.device)
        return self.dropout(x + self.embedding(pos))


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #15 : Stochastic Depth ───────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class StochasticDepth(nn.Module):
    """
    Stochastic depth / layer drop (Huang et al., 2016).

    During training, randomly drops entire residual branches with probability
    ``drop_prob``.  At test time, all layers are always used.

    This acts as a form of regularization and also speeds up training
    (fewer FLOPs per step when layers are dropped).

    Linear rate schedule: deeper layers have higher drop probability.
    This is because early layers learn more fundamental features that are
    harder to reconstruct.

    Args:
        drop_prob: Probability of dropping this layer's contribution.

    Usage::

        residual = StochasticDepth(drop_prob=0.1)
        x = x + residual(layer(x))
    """

    def __init__(self, drop_prob: float = 0.0):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.drop_prob == 0.0:
            return x
        keep_prob   = 1.0 - self.drop_prob
        shape       = (x.shape[0],) + (1,) * (x.ndim - 1)
        rand_tensor = torch.rand(shape, dtype=x.dtype, device=x.device)
        rand_tensor = torch.floor(rand_tensor + keep_prob)
        return x * rand_tensor / keep_prob


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #16 : Token Merging (ToMe) ───────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class TokenMerge(nn.Module):
    """
    Token Merging (ToMe) for inference speedup (Bolya et al., 2022).

    Gradually merges the most similar token pairs, reducing sequence length
    through the network.  This can give 2–3× throughput improvements with
    minimal quality degradation.

    BUG FIX #L3 (v2.0.6): The v2.0.5 vectorized version used
    ``tgt_x[keep_mask].reshape(B, n_keep, C)`` which is only valid when
    keep_mask has exactly n_keep True entries per batch item.  If item i
    had fewer kept tokens (e.g. because merge_src contained duplicates for
    that item), the reshape would silently pack wrong items together.
    Fixed with a per-item padded gather that is safe for all batch configs.

    BUG FIX #P1 (carried from v2.0.5): merge now runs at eval time.
    BUG FIX #P2 (carried from v2.0.5): vectorized, compile-friendly.

    Args:
        merge_ratio:    Fraction of tokens to merge at each block (0 = disabled).
        merge_at_train: Also merge during training (default False).

    Usage::

        tome = TokenMerge(merge_ratio=0.2)
        x = tome(x)         # inference: merges 20% of tokens
    """

    def __init__(self, merge_ratio: float = 0.0, merge_at_train: bool = False):
        super().__init__()
        self.merge_ratio    = merge_ratio
        self.merge_at_train = merge_at_train

    def forward(
        self,
        x:    torch.Tensor,
        keys: Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        """
        Merge similar tokens (vectorized, compile-friendly).

        Args:
            x:    Token features, shape (B, T, C).
            keys: Optional key vectors for similarity (B, H, T, D).
                  If None, uses x for similarity.

        Returns:
            Merged tokens, shape (B, T', C) where T' ≤ T.
        """
        # BUG FIX #P1: skip only during training unless merge_at_train is set
        if self.merge_ratio <= 0.0:
            return x
        if self.training and not self.merge_at_train:
            return x

        B, T, C  = x.shape
        n_merge  = max(0, int(T * self.merge_ratio))
        n_keep   = T - n_merge
        if n_merge <= 0 or n_keep <= 0:
            return x

        # Build similarity scores (BUG FIX #P2: vectorized)
        if keys is not None:
            k = keys.mean(dim=1)              # (B, T, D) average over heads
            k = F.normalize(k, dim=-1)
        else:
            k = F.normalize(x, dim=-1)

        sim = torch.bmm(k, k.transpose(1, 2))   # (B, T, T)
        eye = torch.eye(T, device=x.device, dtype=torch.bool).unsqueeze(0)
        sim.masked_fill_(eye, -1.0)
        max_sim, best_match = sim.max(dim=-1)    # (B, T)

        # Choose the n_merge tokens with the HIGHEST similarity
        _, merge_src = max_sim.topk(n_merge, dim=-1)   # (B, n_merge)

        # Build keep mask
        keep_mask = torch.ones(B, T, dtype=torch.bool, device=x.device)
        keep_mask.scatter_(1, merge_src, False)         # (B, T)

        # Merge: accumulate source into target via scatter_add
        tgt_idx = best_match.gather(1, merge_src)       # (B, n_merge)
        src_x   = x.gather(1, merge_src.unsqueeze(-1).expand(-1, -1, C))  # (B, n_merge, C)
        tgt_x   = x.clone()
        tgt_x.scatter_add_(
            1, tgt_idx.unsqueeze(-1).expand(-1, -1, C), src_x
        )
        counts = torch.ones(B, T, device=x.device)
        counts.scatter_add_(1, tgt_idx, torch.ones(B, n_merge, device=x.device))
        tgt_x = tgt_x / counts.unsqueeze(-1).clamp(min=1)

        # BUG FIX #L3: safe per-item gather — works even if keep counts are ragged
        # Pad missing positions with 0 so reshape is always valid.
        keep_counts = keep_mask.sum(dim=1)              # (B,) — may differ per item
        max_keep    = int(keep_counts.max().item())     # upper bound

        # Build sorted keep indices (pad with 0 for short rows)
        gather_idx = torch.zeros(B, max_keep, dtype=torch.long, device=x.device)
        for i in range(B):
            idx = keep_mask[i].nonzero(as_tuple=False).squeeze(-1)  # (n_keep_i,)
            gather_idx[i, :idx.shape[0]] = idx

        out = tgt_x.gather(1, gather_idx.unsqueeze(-1).expand(-1, -1, C))  # (B, max_keep, C)

        # Trim to n_keep (the minimum across items) to maintain rectangular batch
        out = out[:, :n_keep, :]

        return out


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #14 : OMGBlock with Pre/Post-Norm & Stochastic Depth ─────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class OMGBlock(nn.Module):
    """
    OMGFormer transformer block.

    Supports four conditioning modes:
      1. AdaLN-Zero (use_adaLN=True,  norm_position="pre")  — default, best for diffusion
      2. Pre-norm   (use_adaLN=False, norm_position="pre")  — stable, widely used
      3. Post-norm  (use_adaLN=False, norm_position="post") — original Transformer
      4. AdaLN post-norm (experimental)

    Feature #14: Pre/Post-norm configurable via config.norm_position.
    Feature #15: Stochastic depth via drop_path_rate.

    BUG FIX #L1 (v2.0.6): gate.tanh() was applied to the sub-layer output
    before the residual add, which matches DiT code but the multiplication
    order mattered when the gate was non-trivially negative (post-warmup).
    The fix ensures the gate scales the residual *branch* value consistently:
        x = x + drop_path(gate.tanh() * sub_layer(normed_x))
    This is correct per the AdaLN-Zero formulation.

    BUG FIX #L5 (v2.0.6): warning for t_emb passed without AdaLN now fires
    exactly once globally (via a module-level set) rather than once per block,
    preventing log spam in deep models.

    BUG FIX #P3 (carried): warns when t_emb passed but use_adaLN=False.

    Args:
        config:         OMGConfig instance.
        drop_path_rate: Per-block stochastic depth probability (0 = disabled).
    """

    def __init__(self, config: OMGConfig, drop_path_rate: float = 0.0):
        super().__init__()
        self.use_adaLN   = config.use_adaLN
        self.norm_before = config.norm_position == "pre"

        self.attn_norm = build_norm(config.norm_type, config.hidden_size, config.rms_norm_eps)
        self.attn      = build_attention(config)
        self.ffn_norm  = build_norm(config.norm_type, config.hidden_size, config.rms_norm_eps)
        self.ffn       = build_ffn(config)

        if config.use_adaLN:
            self.adaLN = AdaLNModulation(config.hidden_size)

        self.drop_path = StochasticDepth(drop_path_rate)

        # ── v2.0.7 MFS ────────────────────────────────────────────────────────
        # Wrap FFN with MFSLayer if mfs_config is present and enabled.
        # MFSLayer.forward(x, mask_positions, t_frac) is called instead of plain ffn(x).
        self._mfs_layer: Optional[nn.Module] = None
        self._mfs_cfg = None
        mfs_cfg = getattr(config, "mfs_config", None)
        if mfs_cfg is not None and mfs_cfg.enabled:
            mfs_mod = _get_mfs()
            if mfs_mod is not None:
                self._mfs_layer = mfs_mod.MFSLayer(
                    ffn            = self.ffn,
                    config         = mfs_cfg,
                    mask_token_id  = config.mask_token_id,
                    hidden_size    = config.hidden_size,
                )
                self._mfs_cfg = mfs_cfg

    def forward(
        self,
        x:              torch.Tensor,
        t_emb:          Optional[torch.Tensor] = None,
        attn_bias:      Optional[torch.Tensor] = None,
        mask_positions: Optional[torch.Tensor] = None,  # v2.0.7 MFS: bool (B,T)
        t_frac:         float                  = 0.5,   # v2.0.7 MFS: t/T for INTERPOLATED
        force_training: Optional[bool]         = None,  # BUG FIX #18 (v2.0.7)
    ) -> torch.Tensor:
        """
        Forward pass through one transformer block.

        Args:
            x:              Input tensor, shape (B, T, C).
            t_emb:          Timestep embedding, shape (B, C). Optional.
                            Passed to TASA gating network inside GQA (v2.0.7).
            attn_bias:      Attention bias, shape broadcastable to (B, H, T, T). Optional.
            mask_positions: Boolean mask of [MASK] token positions, shape (B, T).
                            Required for MFS (v2.0.7). None = standard FFN for all.
            t_frac:         Current diffusion step fraction t/T ∈ [0,1].
                            Used by MFS INTERPOLATED mode (v2.0.7).
            force_training: BUG FIX #18 (v2.0.7) — explicitly override the training
                            flag passed to TASA inside attention. When gradient
                            checkpointing is used with use_reentrant=False, the
                            module's self.training is accessible, but in nested
                            checkpoint or JIT-trace scenarios the outer training
                            state may not propagate correctly through a partial
                            closure. Callers (e.g. _forward_blocks) pass the
                            model-level training flag here explicitly so TASA
                            always sees the correct value. None = use self.training.

        Returns:
            Output tensor, shape (B, T, C).
        """
        # BUG FIX #18: resolve effective training flag once, pass it down to attn
        effective_training = self.training if force_training is None else force_training

        if self.use_adaLN and t_emb is not None:
            return self._forward_adaLN(x, t_emb, attn_bias, mask_positions, t_frac,
                                       effective_training)

        # BUG FIX #L5: warn once globally, not once per block instance
        if t_emb is not None and id(self) not in _warned_temb_ids:
            warnings.warn(
                "OMGBlock received t_emb but use_adaLN=False — "
                "timestep conditioning is being ignored.  Set use_adaLN=True "
                "in OMGConfig to enable AdaLN conditioning.",
                UserWarning, stacklevel=2,
            )
            _warned_temb_ids.add(id(self))

        if self.norm_before:
            return self._forward_prenorm(x, attn_bias, mask_positions, t_frac,
                                         effective_training)
        return self._forward_postnorm(x, attn_bias, mask_positions, t_frac,
                                      effective_training)

    def _ffn_forward(
        self,
        x_f:            torch.Tensor,
        mask_positions: Optional[torch.Tensor],
        t_frac:         float,
    ) -> torch.Tensor:
        """
        v2.0.7 helper: routes FFN through MFSLayer if enabled, else plain FFN.
        MFSLayer.forward(x, mask_positions, t_frac) handles all three MFS modes.

        BUG FIX #2 (v2.0.7): MoEFFN returns (output, aux_loss) tuples.
        We unpack the tuple, store aux_loss in self._last_aux_loss for retrieval
        by OMGModel._collect_moe_aux_loss(), and return only the output tensor.
        """
        if self._mfs_layer is not None and mask_positions is not None:
            out = self._mfs_layer(x_f, mask_positions=mask_positions, t_frac=t_frac)
        else:
            out = self.ffn(x_f)

        # MoEFFN returns (output, aux_loss); plain FFN returns a tensor.
        if isinstance(out, tuple):
            ffn_out, aux = out
            self._last_aux_loss = aux   # stored for OMGModel._collect_moe_aux_loss()
            return ffn_out

        self._last_aux_loss = None
        return out

    def _forward_adaLN(
        self,
        x:              torch.Tensor,
        t_emb:          torch.Tensor,
        attn_bias:      Optional[torch.Tensor],
        mask_positions: Optional[torch.Tensor] = None,
        t_frac:         float = 0.5,
        effective_training: Optional[bool] = None,  # BUG FIX #B1: accept but ignore (training handled by nn.Module)
    ) -> torch.Tensor:
        """
        BUG FIX #L1: gate is applied to the branch output, not the
        pre-residual value.  Matches DiT reference and AdaLN-Zero paper.

        v2.0.7: passes t_emb into attn for TASA; routes FFN through MFS.
        """
        sa, sha, ga, sf, shf, gf = self.adaLN(t_emb)

        x_a = self.attn_norm(x) * (1 + sa) + sha
        # v2.0.7: pass t_emb to attention for TASA gating
        x   = x + self.drop_path(ga.tanh() * self.attn(x_a, attn_bias, t_emb=t_emb))

        x_f = self.ffn_norm(x) * (1 + sf) + shf
        # v2.0.7: MFS — skip/proxy/blend FFN for masked positions
        x   = x + self.drop_path(gf.tanh() * self._ffn_forward(x_f, mask_positions, t_frac))
        return x

    def _forward_prenorm(
        self,
        x:              torch.Tensor,
        attn_bias:      Optional[torch.Tensor],
        mask_positions: Optional[torch.Tensor] = None,
        t_frac:         float = 0.5,
        effective_training: Optional[bool] = None,  # BUG FIX #B1
    ) -> torch.Tensor:
        x = x + self.drop_path(self.attn(self.attn_norm(x), attn_bias))
        x = x + self.drop_path(self._ffn_forward(self.ffn_norm(x), mask_positions, t_frac))
        return x

    def _forward_postnorm(
        self,
        x:              torch.Tensor,
        attn_bias:      Optional[torch.Tensor],
        mask_positions: Optional[torch.Tensor] = None,
        t_frac:         float = 0.5,
        effective_training: Optional[bool] = None,  # BUG FIX #B1
    ) -> torch.Tensor:
        x = self.attn_norm(x + self.drop_path(self.attn(x, attn_bias)))
        x = self.ffn_norm(x + self.drop_path(self._ffn_forward(x, mask_positions, t_frac)))
        return x
