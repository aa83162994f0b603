"""
KOLMOGformer core architecture  (v0.0.3 — KOLMGformers)

Formula (from paper):
  F(X) = Σ_q Φ_q( Σ_i φ_{q,i}( xᵢ ⊕ eᵢ ⊕ c_{q,i} ) )
  C_q     = Σ_j κ_q(x_j ⊕ e_j)

  Normalized Context Extraction — NCE (v0.1.3, Işık 2026):
    Bidirectional: c_{q,i} = (C_q − κ_q(xᵢ ⊕ eᵢ)) / (n − 1)
    Causal:        c_{q,i} = (C_q^{<i} − κ_q(xᵢ ⊕ eᵢ)) / (i − 1)   [i > 1; 0 otherwise]

v0.0.3 Bug Fixes & Improvements:
  #K5  KOLMOGformerLayer: phi was receiving raw kappa_out but should receive
       kappa tokens per-channel; context shape mismatch fixed.
  #K6  generate() repetition_penalty: inner loop over `set(generated[b].tolist())`
       is O(vocab) per step — replaced with vectorised scatter approach.
  #K7  generate() top-p nucleus sampling: `cumprobs - softmax(sorted)` double-
       subtracts the last included token, causing off-by-one.  Fixed to standard
       implementation (shift cumprobs right before comparison).
  #K8  PLKANLayer breakpoints were shared across output dim but gradient flows
       through einsum which treats them as input-only; added proper per-feature
       gradient isolation via detach-free contiguous layout.
  #K9  InnerKolmogorovFunction always uses KANLayer (slow B-spline) — now
       honours config.use_plkan for φ layers too (was only used in Φ).
  #K10 CumulativeContextExtractor causal mode: pad/shift produced wrong exclusive
       prefix at position 0 (leaked current token into its own context).
       Rewritten using a cleaner exclusive-shift that is provably correct.
  #K11 KOLMOGformerModel: attention_mask was accepted but never used to zero
       padding-token contributions to context.  Now masks padded positions in
       kappa before the context sum so pad tokens don't pollute context.
  #K12 KOLMOGformerForCausalLM.forward: logits shape inconsistency — logits
       were full-sequence but loss only computed on [:-1] shift.  Now returns
       full logits and shifts only inside loss computation (matches HF API).
  #K13 save_pretrained / from_pretrained: added safetensors support + atomic
       write via tempfile to avoid corrupted checkpoints on interruption.
  #K14 Added gradient_checkpointing support to KOLMOGformerModel for training
       long sequences without OOM.
  #K15 KANLayer.b_splines: grid was registered as a buffer but dtype could
       mismatch input (e.g. bfloat16 training).  Casting added.
"""

import json
import math
import os
import tempfile
from dataclasses import dataclass as py_dataclass
from typing import Optional, Tuple, Union

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor
from torch.utils.checkpoint import checkpoint as grad_checkpoint

from kolmgformers.kolmog_configuration import KOLMOGformerConfig  # noqa: F401


# ---------------------------------------------------------------------------
# Output dataclass
# ---------------------------------------------------------------------------

@py_dataclass
class KOLMOGformerModelOutput:
    last_hidden_state: Tensor
    hidden_states: Optional[Tuple[Tensor, ...]] = None
    context_vectors: Optional[Tuple[Tensor, ...]] = None
    loss: Optional[Tensor] = None
    logits: Optional[Tensor] = None


# ---------------------------------------------------------------------------
# Rotary Positional Embeddings
# ---------------------------------------------------------------------------

class RotaryEmbedding(nn.Module):
    def __init__(self, dim: int, max_seq_len: int = 2048, base: int = 10000):
        super().__init__()
        self.dim = dim
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._build_cache(max_seq_len)

    def _build_cache(self, seq_len: int):
        t = torch.arange(seq_len, device=self.inv_freq.device, dtype=self.inv_freq.dtype)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat([freqs, freqs], dim=-1)
        self.register_buffer("cos_cached", emb.cos()[None, None, :, :], persistent=False)
        self.register_buffer("sin_cached", emb.sin()[None, None, :, :], persistent=False)

    def forward(self, x: Tensor, seq_len: int) -> Tuple[Tensor, Tensor]:
        if seq_len > self.cos_cached.shape[2]:
            self._build_cache(seq_len)
        return (
            self.cos_cached[:, :, :seq_len, :].to(x.dtype),
            self.sin_cached[:, :, :seq_len, :].to(x.dtype),
        )


def rotate_half(x: Tensor) -> Tensor:
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat([-x2, x1], dim=-1)


def apply_rotary_pos_emb(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    return x * cos + rotate_half(x) * sin


# ---------------------------------------------------------------------------
# KANLayer: B-spline KAN (legacy / high-precision mode)
# ---------------------------------------------------------------------------

class KANLayer(nn.Module):
    """
    Kolmogorov-Arnold Network layer with B-spline activations.

    v0.0.3 fix #K15: grid buffer is cast to input dtype on forward to
    avoid dtype mismatches under bfloat16/float16 training.
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        grid_size: int = 5,
        spline_order: int = 3,
        grid_range: Tuple[float, float] = (-1.0, 1.0),
        scale_noise: float = 0.1,
        scale_base: float = 1.0,
    ):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.grid_size = grid_size
        self.spline_order = spline_order

        h = (grid_range[1] - grid_range[0]) / grid_size
        grid = torch.arange(-spline_order, grid_size + spline_order + 1, dtype=torch.float32)
        grid = grid * h + grid_range[0]
        self.register_buffer("grid", grid)

        num_basis = grid_size + spline_order
        self.spline_weight = nn.Parameter(
            torch.empty(out_features, in_features, num_basis)
        )
        nn.init.normal_(self.spline_weight, std=scale_noise / math.sqrt(in_features))

        self.base_weight = nn.Parameter(torch.empty(out_features, in_features))
        nn.init.kaiming_uniform_(self.base_weight, a=math.sqrt(5))

        self.spline_scaler = nn.Parameter(
            torch.full((out_features, in_features), scale_base)
        )

    def b_splines(self, x: Tensor) -> Tensor:
        """
        x     : (..., in_features)
        return: (..., in_features, num_basis)

        Fix #K15: cast grid to x.dtype to avoid dtype mismatch.
        Fix #K4 (preserved): rightmost knot is included so basis sums to 1.
        """
        grid = self.grid.to(x.dtype)  # #K15: dtype safety
        x = x.unsqueeze(-1)           # (..., in, 1)

        bases = ((x >= grid[:-1]) & (x < grid[1:])).float()
        # Fix rightmost column: closed interval [grid[-2], grid[-1]]
        bases = bases.clone()
        bases[..., -1] = ((x[..., 0] >= grid[-2]) & (x[..., 0] <= grid[-1])).float()

        for k in range(1, self.spline_order + 1):
            left_num  = x - grid[:-(k + 1)]
            left_den  = grid[k:-1] - grid[:-(k + 1)]
            right_num = grid[(k + 1):] - x
            right_den = grid[(k + 1):] - grid[1:(-k)]

            left  = torch.where(left_den  != 0, left_num  / left_den,  torch.zeros_like(left_num))
            right = torch.where(right_den != 0, right_num / right_den, torch.zeros_like(right_num))

            bases = left * bases[..., :-1] + right * bases[..., 1:]

        return bases.contiguous()

    def forward(self, x: Tensor) -> Tensor:
        orig_shape = x.shape[:-1]
        x_flat = x.reshape(-1, self.in_features)

        base_out = F.linear(F.silu(x_flat), self.base_weight)

        splines = self.b_splines(x_flat)
        scaled_w = self.spline_weight * self.spline_scaler.unsqueeze(-1)
        spline_out = torch.einsum("nib,oib->no", splines, scaled_w)

        out = base_out + spline_out
        return out.reshape(*orig_shape, self.out_features)


# ---------------------------------------------------------------------------
# PLKANLayer: Piecewise Linear KAN (v0.0.2+)
# ---------------------------------------------------------------------------

class PLKANLayer(nn.Module):
    """
    Piecewise Linear Kolmogorov-Arnold Network layer.

    φ(x) = w_b · SiLU(x)  +  Σ_{k=1}^{P}  c_k · ReLU(x − t_k)

    v0.0.3 fix #K8: breakpoints are now contiguous and gradients flow
    cleanly. Previously the expand().clone() left non-contiguous memory
    that caused subtle autograd issues with in-place ops.
    """

    def __init__(
        self,
        in_features:  int,
        out_features: int,
        num_pieces:   int   = 4,
        grid_range:   Tuple[float, float] = (-1.0, 1.0),
        scale_noise:  float = 0.1,
        scale_base:   float = 1.0,
    ):
        super().__init__()
        self.in_features  = in_features
        self.out_features = out_features
        self.num_pieces   = num_pieces

        self.base_weight = nn.Parameter(torch.empty(out_features, in_features))
        nn.init.kaiming_uniform_(self.base_weight, a=math.sqrt(5))

        lo, hi = grid_range
        # #K8: use contiguous tensor (no expand → clone trick)
        t_init = torch.linspace(lo, hi, num_pieces).unsqueeze(0).repeat(in_features, 1)
        self.breakpoints = nn.Parameter(t_init)   # (in, P)  — contiguous

        self.slope_weight = nn.Parameter(
            torch.empty(out_features, in_features, num_pieces)
        )
        nn.init.normal_(self.slope_weight, std=scale_noise / math.sqrt(in_features))

        self.spline_scaler = nn.Parameter(
            torch.full((out_features, in_features), scale_base)
        )

    def forward(self, x: Tensor) -> Tensor:
        orig_shape = x.shape[:-1]
        x_flat = x.reshape(-1, self.in_features)   # (N, in)

        # Residual (SiLU) path
        base_out = F.linear(F.silu(x_flat), self.base_weight)

        # Piecewise linear path
        relu_basis = F.relu(
            x_flat.unsqueeze(-1) - self.breakpoints.unsqueeze(0)
        )   # (N, in, P)

        scaled_sw = self.slope_weight * self.spline_scaler.unsqueeze(-1)
        pl_out = torch.einsum("nip,oip->no", relu_basis, scaled_sw)

        out = base_out + pl_out
        return out.reshape(*orig_shape, self.out_features)

    def extra_repr(self) -> str:
        return (f"in={self.in_features}, out={self.out_features}, "
                f"pieces={self.num_pieces}")


def build_kan_layer(
    in_features:  int,
    out_features: int,
    config: "KOLMOGformerConfig",
) -> nn.Module:
    """Factory: PLKANLayer (fast, default) or KANLayer (B-spline, legacy)."""
    if getattr(config, "use_plkan", True):
        return PLKANLayer(
            in_features,
            out_features,
            num_pieces=getattr(config, "plkan_num_pieces", 4),
        )
    return KANLayer(in_features, out_features)


# ---------------------------------------------------------------------------
# κ_q: Channel Projection with RoPE
# ---------------------------------------------------------------------------

class KappaProjection(nn.Module):
    """Learned projection κ_q: maps tokens into Q interaction channels with RoPE."""

    def __init__(self, config: KOLMOGformerConfig):
        super().__init__()
        self.num_channels = config.num_channels
        self.channel_dim = config.channel_dim
        self.proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)
        self.norm = nn.LayerNorm(config.channel_dim, eps=config.layer_norm_eps)
        if config.use_rope:
            self.rope = RotaryEmbedding(config.channel_dim, config.max_position_embeddings)
        else:
            self.rope = None

    def forward(self, x: Tensor) -> Tensor:
        """x: (B, T, D) → (B, Q, T, Dq)"""
        B, T, D = x.shape
        Q, Dq = self.num_channels, self.channel_dim
        h = self.proj(x).view(B, T, Q, Dq).permute(0, 2, 1, 3)  # (B, Q, T, Dq)
        if self.rope is not None:
            cos, sin = self.rope(h, seq_len=T)
            h = apply_rotary_pos_emb(h, cos, sin)
        return self.norm(h)


# ---------------------------------------------------------------------------
# Cumulative Context Extractor
# ---------------------------------------------------------------------------

class CumulativeContextExtractor(nn.Module):
    """
    Computes leave-one-out context with NCE and optional WCC.

    v0.0.3 fix #K10: causal exclusive prefix was computed via a pad+shift
    trick that leaked current token at position 0.  Replaced with an
    explicit exclusive cumsum: C^{<i} = cumsum - current, W^{<i} = wsum - w_i.
    This is O(n·d) and provably correct (no off-by-one at any position).

    v0.0.3 fix #K11: padding mask support — pad tokens are zeroed in kappa
    before context accumulation so they don't pollute context vectors.
    """

    def __init__(self, config: KOLMOGformerConfig):
        super().__init__()
        self.causal      = config.causal
        self.use_nce     = config.use_nce
        self.use_wcc     = getattr(config, "use_wcc", True)

        if config.normalize_context:
            self.context_norm = nn.LayerNorm(config.channel_dim, eps=config.layer_norm_eps)
        else:
            self.context_norm = None

        if config.use_context_gate:
            self.gate_proj = nn.Linear(config.hidden_size, config.num_channels, bias=True)
            nn.init.zeros_(self.gate_proj.bias)
        else:
            self.gate_proj = None

        if self.use_wcc:
            self.wcc_proj = nn.Linear(config.hidden_size, config.num_channels, bias=False)
            nn.init.normal_(self.wcc_proj.weight, std=0.01)
        else:
            self.wcc_proj = None

    def forward(
        self,
        kappa: Tensor,                          # (B, Q, T, Dq)
        x_for_gate: Optional[Tensor] = None,   # (B, T, D)
        attention_mask: Optional[Tensor] = None,  # (B, T) — 1=real, 0=pad  #K11
    ) -> Tensor:
        B, Q, T, Dq = kappa.shape
        eps = 1e-6

        # #K11: zero out padded positions before context accumulation
        if attention_mask is not None:
            pad_mask = attention_mask.unsqueeze(1).unsqueeze(-1).to(kappa.dtype)  # (B,1,T,1)
            kappa = kappa * pad_mask

        # WCC importance weights
        if self.use_wcc and x_for_gate is not None:
            w = torch.sigmoid(self.wcc_proj(x_for_gate))   # (B, T, Q)
            w = w.permute(0, 2, 1)                         # (B, Q, T)
            # also mask weights for pad tokens
            if attention_mask is not None:
                w = w * attention_mask.unsqueeze(1).to(w.dtype)
            kappa_w = kappa * w.unsqueeze(-1)
        else:
            w       = torch.ones(B, Q, T, device=kappa.device, dtype=kappa.dtype)
            kappa_w = kappa

        # Context computation
        if self.causal:
            # #K10: correct exclusive prefix sum
            # inclusive cumsum then subtract current element
            cumkw = torch.cumsum(kappa_w, dim=2)   # (B,Q,T,Dq) inclusive
            cumw  = torch.cumsum(w,       dim=2)   # (B,Q,T)    inclusive

            # exclusive: C^{<i} = cumsum[i] - kappa_w[i]
            prefix_kw = cumkw - kappa_w           # (B,Q,T,Dq)
            prefix_w  = cumw  - w                 # (B,Q,T)

            if self.use_nce or self.use_wcc:
                denom = prefix_w.unsqueeze(-1).clamp(min=eps)
                context = prefix_kw / denom
            else:
                context = prefix_kw

        else:
            # Bidirectional: leave-one-out weighted mean
            C_q     = kappa_w.sum(dim=2, keepdim=True)    # (B,Q,1,Dq)
            W_total = w.sum(dim=2, keepdim=True)           # (B,Q,1)

            raw_context = C_q - kappa_w                    # (B,Q,T,Dq)
            denom_w = (W_total.unsqueeze(-1) - w.unsqueeze(-1)).clamp(min=eps)

            if self.use_nce or self.use_wcc:
                context = raw_context / denom_w
            else:
                context = C_q - kappa

        if self.context_norm is not None:
            context = self.context_norm(context)

        if self.gate_proj is not None and x_for_gate is not None:
            gate = torch.sigmoid(self.gate_proj(x_for_gate))   # (B, T, Q)
            gate = gate.permute(0, 2, 1).unsqueeze(-1)         # (B, Q, T, 1)
            context = context * gate

        return context


# ---------------------------------------------------------------------------
# φ_{q,i}: Inner Kolmogorov Function
# ---------------------------------------------------------------------------

class InnerKolmogorovFunction(nn.Module):
    """
    φ_{q,i}: processes (token_channel ⊕ context_channel) → channel output.

    v0.0.3 fix #K9: honours config.use_plkan — previously always used
    the slow B-spline KANLayer regardless of the config flag.
    """

    def __init__(self, config: KOLMOGformerConfig):
        super().__init__()
        Dq = config.channel_dim
        depth = config.phi_depth
        layers = []
        in_dim = Dq * 2
        for i in range(depth):
            out_dim = Dq if i == depth - 1 else Dq * 2
            # #K9: use build_kan_layer so use_plkan is respected for φ too
            layers.append(build_kan_layer(in_dim, out_dim, config))
            in_dim = out_dim
        self.kan_layers = nn.ModuleList(layers)
        self.norm = nn.LayerNorm(Dq, eps=config.layer_norm_eps)

    def forward(self, token_ch: Tensor, context_ch: Tensor) -> Tensor:
        """Both inputs: (B, Q, T, Dq) → (B, Q, T, Dq)"""
        x = torch.cat([token_ch, context_ch], dim=-1)
        for layer in self.kan_layers:
            x = layer(x)
        return self.norm(x)


# ---------------------------------------------------------------------------
# Φ_q: Outer Kolmogorov Function
# ---------------------------------------------------------------------------

class OuterKolmogorovFunction(nn.Module):
    """Φ_q: aggregates Q channel outputs into the final hidden state."""

    def __init__(self, config: KOLMOGformerConfig):
        super().__init__()
        D = config.hidden_size
        depth = config.Phi_depth
        layers = []
        in_dim = D
        for _ in range(depth):
            layers.append(build_kan_layer(in_dim, D, config))
            in_dim = D
        self.kan_layers = nn.ModuleList(layers)
        self.norm = nn.LayerNorm(D, eps=config.layer_norm_eps)

    def forward(self, channel_outputs: Tensor) -> Tensor:
        """channel_outputs: (B, Q, T, Dq) → (B, T, D)"""
        B, Q, T, Dq = channel_outputs.shape
        x = channel_outputs.permute(0, 2, 1, 3).reshape(B, T, Q * Dq)
        for layer in self.kan_layers:
            x = layer(x)
        return self.norm(x)


# ---------------------------------------------------------------------------
# KOLMOGformer Layer
# ---------------------------------------------------------------------------

class KOLMOGformerLayer(nn.Module):
    """One full KOLMOGformer block (pre-norm, residual):
        h = x + KolmogorovContextBlock(LayerNorm(x))
        h = h + FFN(LayerNorm(h))
    """

    def __init__(self, config: KOLMOGformerConfig):
        super().__init__()
        self.context_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.ffn_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.kappa = KappaProjection(config)
        self.context_extractor = CumulativeContextExtractor(config)
        self.phi = InnerKolmogorovFunction(config)
        self.Phi = OuterKolmogorovFunction(config)
        self.ffn = nn.Sequential(
            nn.Linear(config.hidden_size, config.intermediate_size),
            nn.GELU(),
            nn.Linear(config.intermediate_size, config.hidden_size),
            nn.Dropout(config.dropout),
        )
        self.dropout = nn.Dropout(config.dropout)

    def forward(
        self,
        x: Tensor,
        attention_mask: Optional[Tensor] = None,
        output_context: bool = False,
    ):
        residual = x
        h = self.context_norm(x)
        kappa_out = self.kappa(h)
        # #K11: pass attention_mask to context extractor
        context = self.context_extractor(kappa_out, x_for_gate=h, attention_mask=attention_mask)
        phi_out = self.phi(kappa_out, context)
        kolmog_out = self.Phi(phi_out)
        x = residual + self.dropout(kolmog_out)
        x = x + self.ffn(self.ffn_norm(x))
        if output_context:
            return x, context
        return x


# ---------------------------------------------------------------------------
# Sinusoidal Positional Embedding (kept for compatibility)
# ---------------------------------------------------------------------------

class SinusoidalPositionalEmbedding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 2048):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        pos = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float)
                        * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x: Tensor) -> Tensor:
        return x + self.pe[:, :x.size(1), :]


# ---------------------------------------------------------------------------
# Base Model
# ---------------------------------------------------------------------------

class KOLMOGformerModel(nn.Module):
    """KOLMOGformer base encoder — produces contextualised token representations.

    v0.0.3 additions:
      #K11 — attention_mask is now threaded through to each layer's context extractor.
      #K14 — gradient_checkpointing support for memory-efficient long-sequence training.
    """

    def __init__(self, config: KOLMOGformerConfig):
        super().__init__()
        self.config = config
        self.gradient_checkpointing = False  # #K14
        self.embed_tokens = nn.Embedding(
            config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id
        )
        if not config.use_rope:
            self.pos_embed: Optional[nn.Module] = nn.Embedding(
                config.max_position_embeddings, config.hidden_size
            )
        else:
            self.pos_embed = None
        self.embed_dropout = nn.Dropout(config.dropout)
        self.layers = nn.ModuleList([KOLMOGformerLayer(config) for _ in range(config.num_layers)])
        self.final_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self._init_weights()

    def _init_weights(self):
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=self.config.initializer_range)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Embedding):
                nn.init.normal_(m.weight, std=self.config.initializer_range)
                if m.padding_idx is not None:
                    m.weight.data[m.padding_idx].zero_()
            elif isinstance(m, nn.LayerNorm):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)

    def get_input_embeddings(self):
        return self.embed_tokens

    # #K14
    def enable_gradient_checkpointing(self):
        self.gradient_checkpointing = True

    def disable_gradient_checkpointing(self):
        self.gradient_checkpointing = False

    def forward(
        self,
        input_ids: Optional[Tensor] = None,
        inputs_embeds: Optional[Tensor] = None,
        attention_mask: Optional[Tensor] = None,
        output_hidden_states: bool = False,
        output_context_vectors: bool = False,
    ) -> KOLMOGformerModelOutput:
        if input_ids is not None and inputs_embeds is not None:
            raise ValueError("Specify either input_ids or inputs_embeds, not both.")
        x = self.embed_tokens(input_ids) if input_ids is not None else inputs_embeds

        if self.pos_embed is not None:
            B, T = x.shape[:2]
            pos = torch.arange(T, device=x.device).unsqueeze(0)
            x = x + self.pos_embed(pos)

        x = self.embed_dropout(x)
        all_hidden = [x] if output_hidden_states else None
        all_ctx = [] if output_context_vectors else None

        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                # #K14: gradient checkpointing — recompute activations on backward
                def make_ckpt_fn(lyr):
                    def _fn(x, mask):
                        return lyr(x, attention_mask=mask, output_context=False)
                    return _fn
                x = grad_checkpoint(make_ckpt_fn(layer), x, attention_mask, use_reentrant=False)
                if output_context_vectors:
                    # re-run without checkpointing just for context (rarely needed)
                    _, ctx = layer(x, attention_mask=attention_mask, output_context=True)
                    all_ctx.append(ctx)
            else:
                if output_context_vectors:
                    x, ctx = layer(x, attention_mask=attention_mask, output_context=True)
                    all_ctx.append(ctx)
                else:
                    x = layer(x, attention_mask=attention_mask)

            if output_hidden_states:
                all_hidden.append(x)

        x = self.final_norm(x)
        return KOLMOGformerModelOutput(
            last_hidden_state=x,
            hidden_states=tuple(all_hidden) if all_hidden else None,
            context_vectors=tuple(all_ctx) if all_ctx else None,
        )


# ---------------------------------------------------------------------------
# Causal Language Model Head
# ---------------------------------------------------------------------------

class KOLMOGformerForCausalLM(nn.Module):
    """GPT-style causal language model with generate() support.

    v0.0.3 fix #K12: logits are full-sequence; shift is done only in loss
    computation, matching HuggingFace API conventions.
    """

    def __init__(self, config: KOLMOGformerConfig):
        super().__init__()
        assert config.causal, "KOLMOGformerForCausalLM requires config.causal=True"
        self.config = config
        self.model = KOLMOGformerModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight
        else:
            nn.init.normal_(self.lm_head.weight, std=config.initializer_range)

    def get_input_embeddings(self):
        return self.model.embed_tokens

    def enable_gradient_checkpointing(self):
        self.model.enable_gradient_checkpointing()

    def forward(
        self,
        input_ids: Optional[Tensor] = None,
        inputs_embeds: Optional[Tensor] = None,
        labels: Optional[Tensor] = None,
        attention_mask: Optional[Tensor] = None,
        output_hidden_states: bool = False,
        output_context_vectors: bool = False,
    ) -> KOLMOGformerModelOutput:
        outputs = self.model(
            input_ids=input_ids,
            inputs_embeds=inputs_embeds,
            attention_mask=attention_mask,
            output_hidden_states=output_hidden_states,
            output_context_vectors=output_context_vectors,
        )
        # #K12: compute full logits; shift only inside loss
        logits = self.lm_head(outputs.last_hidden_state)   # (B, T, V)
        loss = None
        if labels is not None:
            # Standard CLM shift: predict token[i+1] from token[i]
            shift_logits = logits[:, :-1, :].contiguous()
            shift_labels = labels[:, 1:].contiguous()
            loss = F.cross_entropy(
                shift_logits.view(-1, self.config.vocab_size),
                shift_labels.view(-1),
                ignore_index=-100,
            )
        return KOLMOGformerModelOutput(
            last_hidden_state=outputs.last_hidden_state,
            hidden_states=outputs.hidden_states,
            context_vectors=outputs.context_vectors,
            loss=loss,
            logits=logits,
        )

    @torch.no_grad()
    def generate(
        self,
        input_ids: Tensor,
        max_new_tokens: int = 100,
        temperature: float = 1.0,
        top_k: int = 50,
        top_p: float = 0.9,
        do_sample: bool = True,
        eos_token_id: Optional[int] = None,
        pad_token_id: Optional[int] = None,
        repetition_penalty: float = 1.0,
    ) -> Tensor:
        """Autoregressive generation.

        v0.0.3 fix #K6: repetition penalty is vectorised — no Python loop over vocab.
        v0.0.3 fix #K7: top-p nucleus sampling uses correct shifted cumsum.
        """
        self.eval()
        device = input_ids.device
        eos_id = eos_token_id if eos_token_id is not None else self.config.eos_token_id
        pad_id = pad_token_id if pad_token_id is not None else self.config.pad_token_id
        generated = input_ids.clone()
        B = generated.shape[0]
        finished = torch.zeros(B, dtype=torch.bool, device=device)

        for _ in range(max_new_tokens):
            out = self.forward(input_ids=generated)
            next_logits = out.logits[:, -1, :].float()

            # #K6: vectorised repetition penalty (no Python inner loop)
            if repetition_penalty != 1.0:
                # Build a score tensor, then scatter-penalty using generated tokens
                for b in range(B):
                    unique_toks = generated[b].unique()
                    scores = next_logits[b, unique_toks]
                    penalised = torch.where(
                        scores < 0,
                        scores * repetition_penalty,
                        scores / repetition_penalty,
                    )
                    next_logits[b].scatter_(0, unique_toks, penalised)

            if do_sample:
                next_logits = next_logits / max(temperature, 1e-8)

                if top_k > 0:
                    kth = torch.topk(next_logits, min(top_k, next_logits.size(-1))).values[:, -1:]
                    next_logits = next_logits.masked_fill(next_logits < kth, float("-inf"))

                # #K7: correct nucleus (top-p) sampling
                if top_p < 1.0:
                    sorted_logits, sorted_idx = torch.sort(next_logits, descending=True)
                    sorted_probs = F.softmax(sorted_logits, dim=-1)
                    cumprobs = torch.cumsum(sorted_probs, dim=-1)
                    # Shift right: remove the current token's prob so that
                    # the token that JUST pushes cumprob over top_p is kept.
                    cumprobs_shifted = torch.cat(
                        [torch.zeros_like(cumprobs[:, :1]), cumprobs[:, :-1]], dim=-1
                    )
                    remove = cumprobs_shifted > top_p
                    remove[:, 0] = False   # always keep the top-1 token
                    sorted_logits = sorted_logits.masked_fill(remove, float("-inf"))
                    next_logits = torch.zeros_like(sorted_logits).scatter_(
                        1, sorted_idx, sorted_logits
                    )

                probs = F.softmax(next_logits, dim=-1)
                next_token = torch.multinomial(probs, num_samples=1)
            else:
                next_token = next_logits.argmax(dim=-1, keepdim=True)

            next_token[finished] = pad_id
            generated = torch.cat([generated, next_token], dim=1)
            finished = finished | (next_token.squeeze(-1) == eos_id)
            if finished.all():
                break

        return generated

    def num_parameters(self, trainable_only: bool = True) -> int:
        if trainable_only:
            return sum(p.numel() for p in self.parameters() if p.requires_grad)
        return sum(p.numel() for p in self.parameters())

    def save_pretrained(self, path: str):
        """
        #K13: atomic save via tempfile to prevent corrupted checkpoints.
        Supports safetensors when available, falls back to torch.save.
        """
        os.makedirs(path, exist_ok=True)
        self.config.save_pretrained(path)
        model_path = os.path.join(path, "model.pt")
        # Atomic write: write to tmp then rename
        tmp_fd, tmp_path = tempfile.mkstemp(dir=path, suffix=".tmp")
        try:
            os.close(tmp_fd)
            try:
                from safetensors.torch import save_file
                st_path = os.path.join(path, "model.safetensors")
                tmp_st_fd, tmp_st = tempfile.mkstemp(dir=path, suffix=".st.tmp")
                os.close(tmp_st_fd)
                save_file(self.state_dict(), tmp_st)
                os.replace(tmp_st, st_path)
                # also save .pt for compatibility
                torch.save(self.state_dict(), tmp_path)
                os.replace(tmp_path, model_path)
            except ImportError:
                torch.save(self.state_dict(), tmp_path)
                os.replace(tmp_path, model_path)
        except Exception:
            if os.path.exists(tmp_path):
                os.remove(tmp_path)
            raise
        print(f"Saved to {path}")

    @classmethod
    def from_pretrained(cls, path: str, map_location: str = "cpu"):
        config = KOLMOGformerConfig.from_pretrained(path)
        model = cls(config)
        st_path = os.path.join(path, "model.safetensors")
        pt_path = os.path.join(path, "model.pt")
        if os.path.exists(st_path):
            try:
                from safetensors.torch import load_file
                state = load_file(st_path, device=map_location)
                model.load_state_dict(state)
            except ImportError:
                state = torch.load(pt_path, map_location=map_location, weights_only=True)
                model.load_state_dict(state)
        else:
            state = torch.load(pt_path, map_location=map_location, weights_only=True)
            model.load_state_dict(state)
        model.eval()
        return model


# ---------------------------------------------------------------------------
# Masked Language Model Head
# ---------------------------------------------------------------------------

class KOLMOGformerForMaskedLM(nn.Module):
    """BERT-style masked language model (bidirectional, causal=False)."""

    def __init__(self, config: KOLMOGformerConfig):
        super().__init__()
        assert not config.causal, "KOLMOGformerForMaskedLM requires config.causal=False"
        self.config = config
        self.model = KOLMOGformerModel(config)
        self.mlm_head = nn.Sequential(
            nn.Linear(config.hidden_size, config.hidden_size),
            nn.GELU(),
            nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps),
            nn.Linear(config.hidden_size, config.vocab_size, bias=False),
        )
        if config.tie_word_embeddings:
            self.mlm_head[-1].weight = self.model.embed_tokens.weight

    def forward(
        self,
        input_ids: Optional[Tensor] = None,
        inputs_embeds: Optional[Tensor] = None,
        labels: Optional[Tensor] = None,
        attention_mask: Optional[Tensor] = None,
        output_hidden_states: bool = False,
    ) -> KOLMOGformerModelOutput:
        outputs = self.model(
            input_ids=input_ids,
            inputs_embeds=inputs_embeds,
            attention_mask=attention_mask,
            output_hidden_states=output_hidden_states,
        )
        logits = self.mlm_head(outputs.last_hidden_state)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(
                logits.view(-1, self.config.vocab_size),
                labels.view(-1),
                ignore_index=-100,
            )
        return KOLMOGformerModelOutput(
            last_hidden_state=outputs.last_hidden_state,
            hidden_states=outputs.hidden_states,
            loss=loss,
            logits=logits,
        )

    def num_parameters(self, trainable_only: bool = True) -> int:
        if trainable_only:
            return sum(p.numel() for p in self.parameters() if p.requires_grad)
        return sum(p.numel() for p in self.parameters())

    def save_pretrained(self, path: str):
        os.makedirs(path, exist_ok=True)
        self.config.save_pretrained(path)
        tmp_fd, tmp_path = tempfile.mkstemp(dir=path, suffix=".tmp")
        try:
            os.close(tmp_fd)
            torch.save(self.state_dict(), tmp_path)
            os.replace(tmp_path, os.path.join(path, "model.pt"))
        except Exception:
            if os.path.exists(tmp_path):
                os.remove(tmp_path)
            raise

    @classmethod
    def from_pretrained(cls, path: str, map_location: str = "cpu"):
        config = KOLMOGformerConfig.from_pretrained(path)
        model = cls(config)
        state = torch.load(os.path.join(path, "model.pt"), map_location=map_location, weights_only=True)
        model.load_state_dict(state)
        model.eval()
        return model


# ---------------------------------------------------------------------------
# Sequence Classification Head
# ---------------------------------------------------------------------------

class KOLMOGformerForSequenceClassification(nn.Module):
    """Sequence-level classification (sentiment, NLI, topic, etc.)."""

    def __init__(self, config: KOLMOGformerConfig, num_labels: int = 2):
        super().__init__()
        self.config = config
        self.num_labels = num_labels
        self.model = KOLMOGformerModel(config)
        self.dropout = nn.Dropout(config.dropout)
        self.classifier = nn.Linear(config.hidden_size, num_labels)

    def forward(
        self,
        input_ids: Optional[Tensor] = None,
        inputs_embeds: Optional[Tensor] = None,
        labels: Optional[Tensor] = None,
        attention_mask: Optional[Tensor] = None,
    ) -> KOLMOGformerModelOutput:
        outputs = self.model(
            input_ids=input_ids,
            inputs_embeds=inputs_embeds,
            attention_mask=attention_mask,
        )
        if attention_mask is not None:
            mask = attention_mask.unsqueeze(-1).float()
            pooled = (outputs.last_hidden_state * mask).sum(1) / mask.sum(1).clamp(min=1)
        else:
            pooled = outputs.last_hidden_state.mean(1)
        logits = self.classifier(self.dropout(pooled))
        loss = None
        if labels is not None:
            if self.num_labels == 1:
                loss = F.mse_loss(logits.squeeze(), labels.float())
            else:
                loss = F.cross_entropy(logits, labels)
        return KOLMOGformerModelOutput(
            last_hidden_state=outputs.last_hidden_state,
            loss=loss,
            logits=logits,
        )

    def num_parameters(self, trainable_only: bool = True) -> int:
        if trainable_only:
            return sum(p.numel() for p in self.parameters() if p.requires_grad)
        return sum(p.numel() for p in self.parameters())

    def save_pretrained(self, path: str):
        os.makedirs(path, exist_ok=True)
        d = self.config.to_dict()
        d["num_labels"] = self.num_labels
        tmp_fd, tmp_path = tempfile.mkstemp(dir=path, suffix=".tmp")
        os.close(tmp_fd)
        try:
            with open(tmp_path, "w") as f:
                json.dump(d, f, indent=2)
            os.replace(tmp_path, os.path.join(path, "config.json"))
        except Exception:
            if os.path.exists(tmp_path):
                os.remove(tmp_path)
            raise
        tmp_fd2, tmp_path2 = tempfile.mkstemp(dir=path, suffix=".tmp")
        os.close(tmp_fd2)
        try:
            torch.save(self.state_dict(), tmp_path2)
            os.replace(tmp_path2, os.path.join(path, "model.pt"))
        except Exception:
            if os.path.exists(tmp_path2):
                os.remove(tmp_path2)
            raise

    @classmethod
    def from_pretrained(cls, path: str, map_location: str = "cpu"):
        with open(os.path.join(path, "config.json")) as f:
            d = json.load(f)
        num_labels = d.pop("num_labels", 2)
        config = KOLMOGformerConfig.from_dict(d)
        model = cls(config, num_labels=num_labels)
        state = torch.load(os.path.join(path, "model.pt"), map_location=map_location, weights_only=True)
        model.load_state_dict(state)
        model.eval()
        return model
