"""
kolmgformers/advanced.py  v2.0.6-BETA
========================================
Advanced inference, training, and deployment utilities.

Changes in v2.0.6-BETA:
  FIX Feature #57 — GGUF export GERÇEK implementasyonu.
        export_gguf() artık tüm model ağırlıklarını F32 / F16 / Q8_0 / Q4_0
        formatlarında gerçek GGUF dosyasına yazar.  llama.cpp converter'a
        ihtiyaç kalmadı.  export_gguf_stub backward-compat alias olarak
        korundu.

New features in v2.0.5 (preserved):
  Feature #53 — KV Cache for efficient autoregressive-style inference.
  Feature #54 — Multi-Token Prediction head (Meta Llama 3-style).
  Feature #55 — Model Merging: SLERP, DARE, TIES weight fusion.
  Feature #56 — RLHF: Reward model head + PPO step helper.
  Feature #57 — Quantization helpers: INT8 / INT4 dynamic quant + GGUF export.
  Feature #58 — Retrieval-Augmented Generation (RAG) context injection hook.
  Feature #59 — Continuous / dynamic batching for high-throughput serving.
  Feature #60 — Long-document chunked attention with sliding-context fusion.
"""

from __future__ import annotations

import copy
import math
import os
import struct
from typing import Callable, Iterable, Iterator, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from kolmgformers.layers import RMSNorm as _RMSNorm


__all__ = [
    # Feature #53
    "KVCache",
    # Feature #54
    "MultiTokenPredictionHead",
    # Feature #55
    "merge_models_slerp",
    "merge_models_dare",
    "merge_models_ties",
    # Feature #56
    "RewardModelHead",
    "ppo_step",
    # Feature #57
    "quantize_int8",
    "quantize_int4",
    "export_gguf",          # v2.0.6: real implementation
    "export_gguf_stub",     # backward-compat alias
    # Feature #58
    "RAGContextInjector",
    # Feature #59
    "DynamicBatchingEngine",
    # Feature #60
    "ChunkedLongDocumentAttention",
]


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #53 : KV Cache ────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class KVCache:
    """
    Feature #53 — Key-Value Cache for efficient incremental inference.

    Stores previously computed key and value tensors so that attention
    only needs to be computed for new tokens.  This eliminates redundant
    O(T²) re-computation and reduces inference latency from O(T) per
    step to O(1) amortized.

    Memory usage: 2 × num_layers × batch × T × num_kv_heads × head_dim
                  per dtype byte.

    For a 7B model at BF16 with batch=1, T=4096:
        2 × 32 × 1 × 4096 × 8 × 128 × 2 bytes ≈ 536 MB

    Usage::

        cache = KVCache(num_layers=32, max_seq_len=4096, device="cuda")
        for layer_idx, (q, k, v) in enumerate(layer_qkv_pairs):
            k_full, v_full = cache.update(layer_idx, k, v)
            attn_out = attend(q, k_full, v_full)

    Args:
        num_layers:  Number of transformer layers.
        max_seq_len: Maximum sequence length to cache.
        device:      Device for cache tensors.
    """

    def __init__(
        self,
        num_layers:  int,
        max_seq_len: int = 4096,
        device:      str = "cpu",
    ):
        self.num_layers  = num_layers
        self.max_seq_len = max_seq_len
        self.device      = device
        self._cache: List[Optional[Tuple[torch.Tensor, torch.Tensor]]] = [
            None
        ] * num_layers
        self._lengths = [0] * num_layers

    def update(
        self,
        layer_idx: int,
        k: torch.Tensor,
        v: torch.Tensor,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        Append new key/value slices and return full cached tensors.

        Args:
            layer_idx: Layer index to update.
            k:         New key tensor, shape (B, H, T_new, D).
            v:         New value tensor, shape (B, H, T_new, D).

        Returns:
            Tuple of full (key, value) tensors including all past tokens.
        """
        prev = self._cache[layer_idx]
        if prev is None:
            self._cache[layer_idx] = (k, v)
        else:
            k_prev, v_prev = prev
            k_full = torch.cat([k_prev, k], dim=2)
            v_full = torch.cat([v_prev, v], dim=2)
            if k_full.shape[2] > self.max_seq_len:
                k_full = k_full[:, :, -self.max_seq_len:, :]
                v_full = v_full[:, :, -self.max_seq_len:, :]
            self._cache[layer_idx] = (k_full, v_full)

        self._lengths[layer_idx] = self._cache[layer_idx][0].shape[2]
        return self._cache[layer_idx]

    def get(
        self, layer_idx: int
    ) -> Optional[Tuple[torch.Tensor, torch.Tensor]]:
        """Return cached (k, v) for a layer, or None if not yet populated."""
        return self._cache[layer_idx]

    def reset(self) -> None:
        """Clear the entire cache (call between unrelated generations)."""
        self._cache   = [None] * self.num_layers
        self._lengths = [0]   * self.num_layers

    def __len__(self) -> int:
        """Return the number of populated cache layers."""
        return sum(1 for c in self._cache if c is not None)

    @property
    def current_length(self) -> int:
        """Return the current cached sequence length (layer 0)."""
        return self._lengths[0]

    def memory_bytes(self) -> int:
        """Estimate total memory occupied by cached tensors in bytes."""
        total = 0
        for entry in self._cache:
            if entry is not None:
                k, v = entry
                total += k.numel() * k.element_size()
                total += v.numel() * v.element_size()
        return total

    def __repr__(self) -> str:
        mb = self.memory_bytes() / 1e6
        return (
            f"KVCache(layers={self.num_layers}, "
            f"current_len={self.current_length}, "
            f"memory={mb:.1f}MB)"
        )


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #54 : Multi-Token Prediction Head ────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class MultiTokenPredictionHead(nn.Module):
    """
    Feature #54 — Multi-Token Prediction (MTP) head (Meta Llama 3, 2024).

    Instead of predicting only the next token, MTP predicts the next K
    tokens simultaneously from each position.  During training, this
    provides K times more gradient signal with zero additional data.
    """

    def __init__(
        self,
        hidden_size: int,
        vocab_size:  int,
        num_steps:   int  = 4,
        share_vocab: bool = True,
    ):
        super().__init__()
        self.num_steps   = num_steps
        self.share_vocab = share_vocab

        self.projs = nn.ModuleList([
            nn.Sequential(
                nn.Linear(hidden_size, hidden_size, bias=False),
                nn.SiLU(),
                nn.Linear(hidden_size, hidden_size, bias=False),
            )
            for _ in range(num_steps - 1)
        ])
        self.norms = nn.ModuleList([
            _RMSNorm(hidden_size)
            for _ in range(num_steps - 1)
        ])

        if share_vocab:
            self.vocab_head = nn.Linear(hidden_size, vocab_size, bias=False)
            self.vocab_heads = None
        else:
            self.vocab_head  = None
            self.vocab_heads = nn.ModuleList([
                nn.Linear(hidden_size, vocab_size, bias=False)
                for _ in range(num_steps)
            ])

    def _lm_head(self, h: torch.Tensor, step: int) -> torch.Tensor:
        if self.share_vocab:
            return F.linear(h, self.vocab_head.weight)
        return self.vocab_heads[step](h)

    def forward(
        self,
        hidden:  torch.Tensor,
        base_lm_weight: Optional[torch.Tensor] = None,
    ) -> List[torch.Tensor]:
        logits_list: List[torch.Tensor] = []

        h = hidden
        if base_lm_weight is not None:
            logits_list.append(F.linear(h, base_lm_weight))
        else:
            logits_list.append(self._lm_head(h, 0))

        for k in range(self.num_steps - 1):
            h = self.norms[k](h + self.projs[k](h))
            logits_list.append(self._lm_head(h, k + 1))

        return logits_list

    def compute_loss(
        self,
        logits_list: List[torch.Tensor],
        labels:      torch.Tensor,
        pad_id:      int = 0,
    ) -> torch.Tensor:
        B, T = labels.shape
        total_loss = torch.tensor(0.0, device=labels.device)
        count = 0

        for k, logits in enumerate(logits_list):
            if T - k - 1 <= 0:
                break
            pred_logits = logits[:, :T - k - 1, :].contiguous()
            tgt         = labels[:, k + 1:].contiguous()
            mask        = tgt != pad_id
            if mask.any():
                total_loss = total_loss + F.cross_entropy(
                    pred_logits[mask].float(), tgt[mask], reduction="mean"
                )
                count += 1

        return total_loss / max(count, 1)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #55 : Model Merging ───────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def _slerp(
    t: float,
    v0: torch.Tensor,
    v1: torch.Tensor,
    eps: float = 1e-8,
) -> torch.Tensor:
    """Spherical linear interpolation between two weight vectors."""
    v0_f = v0.float()
    v1_f = v1.float()
    n0   = v0_f.norm()
    n1   = v1_f.norm()
    if n0 < eps or n1 < eps:
        return ((1 - t) * v0_f + t * v1_f).to(v0.dtype)

    v0_n  = v0_f / n0
    v1_n  = v1_f / n1
    dot   = (v0_n * v1_n).sum().clamp(-1.0, 1.0)
    omega = dot.acos()

    if omega.abs() < eps:
        return ((1 - t) * v0_f + t * v1_f).to(v0.dtype)

    sin_omega = omega.sin()
    result    = (
        (((1 - t) * omega).sin() / sin_omega) * v0_f
        + ((t * omega).sin() / sin_omega) * v1_f
    )
    return result.to(v0.dtype)


def merge_models_slerp(
    model_a:  nn.Module,
    model_b:  nn.Module,
    t:        float = 0.5,
) -> nn.Module:
    """Feature #55 — SLERP model merging."""
    merged = copy.deepcopy(model_a)
    sd_a   = model_a.state_dict()
    sd_b   = model_b.state_dict()

    merged_sd = {}
    for key in sd_a:
        if key in sd_b and sd_a[key].shape == sd_b[key].shape:
            merged_sd[key] = _slerp(t, sd_a[key], sd_b[key])
        else:
            merged_sd[key] = sd_a[key].clone()

    merged.load_state_dict(merged_sd)
    return merged


def merge_models_dare(
    base:       nn.Module,
    fine_tuned: nn.Module,
    density:    float = 0.5,
    weight:     float = 1.0,
    seed:       int   = 42,
) -> nn.Module:
    """Feature #55 — DARE model merging."""
    merged = copy.deepcopy(base)
    sd_b   = base.state_dict()
    sd_ft  = fine_tuned.state_dict()

    rng  = torch.Generator()
    rng.manual_seed(seed)

    merged_sd = {}
    for key in sd_b:
        if key not in sd_ft or sd_b[key].shape != sd_ft[key].shape:
            merged_sd[key] = sd_b[key].clone()
            continue

        delta = (sd_ft[key].float() - sd_b[key].float())
        mask  = (torch.rand(delta.shape, generator=rng) < density).float()
        pruned_delta = delta * mask / (density + 1e-8)
        merged_sd[key] = (sd_b[key].float() + weight * pruned_delta).to(sd_b[key].dtype)

    merged.load_state_dict(merged_sd)
    return merged


def merge_models_ties(
    base:      nn.Module,
    models:    List[nn.Module],
    density:   float = 0.2,
    weight:    float = 1.0,
) -> nn.Module:
    """Feature #55 — TIES model merging."""
    merged = copy.deepcopy(base)
    sd_b   = base.state_dict()

    all_deltas: List[dict] = []
    for m in models:
        sd_m = m.state_dict()
        delta = {}
        for key in sd_b:
            if key in sd_m and sd_b[key].shape == sd_m[key].shape:
                delta[key] = (sd_m[key].float() - sd_b[key].float())
        all_deltas.append(delta)

    merged_sd = {}
    for key in sd_b:
        if not all(key in d for d in all_deltas):
            merged_sd[key] = sd_b[key].clone()
            continue

        stacked = torch.stack([d[key] for d in all_deltas], dim=0)

        flat = stacked.reshape(len(models), -1)
        k    = max(1, int(flat.shape[1] * density))
        topk_vals, _ = flat.abs().topk(k, dim=1)
        threshold     = topk_vals[:, -1:].unsqueeze(-1)
        mask          = stacked.abs() >= threshold.reshape(len(models), *([1] * (stacked.dim() - 1)))
        stacked       = stacked * mask

        sign_sum     = stacked.sign().sum(dim=0)
        elected_sign = sign_sum.sign()

        agree = (stacked.sign() == elected_sign.unsqueeze(0)) | (stacked == 0)
        avg_delta = (stacked * agree).sum(dim=0) / (agree.float().sum(dim=0).clamp(min=1))

        merged_sd[key] = (sd_b[key].float() + weight * avg_delta).to(sd_b[key].dtype)

    merged.load_state_dict(merged_sd)
    return merged


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #56 : RLHF — Reward Model Head + PPO Step ────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class RewardModelHead(nn.Module):
    """Feature #56 — Reward Model head for RLHF."""

    def __init__(self, base_model: nn.Module, dropout: float = 0.1):
        super().__init__()
        self.base_model = base_model
        C = base_model.config.hidden_size
        self.head = nn.Sequential(
            nn.Dropout(dropout),
            nn.Linear(C, C // 2),
            nn.GELU(),
            nn.Linear(C // 2, 1),
        )
        nn.init.zeros_(self.head[-1].weight)
        nn.init.zeros_(self.head[-1].bias)

    def forward(
        self,
        input_ids:      torch.Tensor,
        attention_mask: Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        out    = self.base_model(
            input_ids,
            attention_mask=attention_mask,
            return_hidden=True,
        )
        hidden = out.last_hidden_state

        if attention_mask is not None:
            last_idx = attention_mask.sum(dim=1) - 1
        else:
            last_idx = torch.full(
                (input_ids.shape[0],), input_ids.shape[1] - 1,
                dtype=torch.long, device=input_ids.device,
            )
        pooled = hidden[torch.arange(hidden.shape[0]), last_idx]
        return self.head(pooled).squeeze(-1)

    @staticmethod
    def preference_loss(
        rewards_chosen:   torch.Tensor,
        rewards_rejected: torch.Tensor,
        margin:           float = 0.0,
    ) -> torch.Tensor:
        return -F.logsigmoid(rewards_chosen - rewards_rejected - margin).mean()


def ppo_step(
    policy_model,
    ref_model,
    reward_model,
    input_ids:       torch.Tensor,
    response_ids:    torch.Tensor,
    kl_coef:         float = 0.1,
    clip_eps:        float = 0.2,
) -> dict:
    """Feature #56 — Single PPO update step for RLHF."""
    B, R   = response_ids.shape
    device = input_ids.device

    full_ids = torch.cat([input_ids, response_ids], dim=1)

    with torch.no_grad():
        ref_logits = ref_model(full_ids).logits[:, input_ids.shape[1]-1:-1, :]
        ref_logp   = F.log_softmax(ref_logits, dim=-1)
        ref_token_logp = ref_logp.gather(-1, response_ids.unsqueeze(-1)).squeeze(-1)

    pol_logits = policy_model(full_ids).logits[:, input_ids.shape[1]-1:-1, :]
    pol_logp   = F.log_softmax(pol_logits, dim=-1)
    pol_token_logp = pol_logp.gather(-1, response_ids.unsqueeze(-1)).squeeze(-1)

    kl_div = (pol_token_logp - ref_token_logp).sum(dim=-1)

    with torch.no_grad():
        rewards = reward_model(full_ids).detach()

    advantage = (rewards - kl_coef * kl_div).detach()

    log_ratio  = pol_token_logp.sum(dim=-1) - ref_token_logp.sum(dim=-1)
    ratio      = log_ratio.exp()
    clip_ratio = ratio.clamp(1 - clip_eps, 1 + clip_eps)
    ppo_loss   = -torch.min(ratio * advantage, clip_ratio * advantage).mean()

    clip_frac = ((ratio - 1.0).abs() > clip_eps).float().mean().item()

    return {
        "loss":        ppo_loss,
        "reward_mean": rewards.mean().item(),
        "kl_mean":     kl_div.mean().item(),
        "clip_frac":   clip_frac,
    }


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #57 : Quantization Helpers + GGUF Gerçek Export ──────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def quantize_int8(model: nn.Module, inplace: bool = True) -> nn.Module:
    """Feature #57 — Dynamic INT8 quantization."""
    if not inplace:
        model = copy.deepcopy(model)
    model.cpu()
    quantized = torch.quantization.quantize_dynamic(
        model,
        {nn.Linear},
        dtype=torch.qint8,
    )
    param_count = sum(p.numel() for p in model.parameters())
    print(
        f"[kolmgformers] INT8 quantization applied: "
        f"~{param_count / 1e6:.1f}M params, "
        f"estimated size ~{param_count / 4e6:.0f}MB"
    )
    return quantized


def simulate_int4(
    model: nn.Module,
    group_size: int = 128,
    inplace: bool   = False,
) -> nn.Module:
    """
    Feature #57 — Simulated INT4 weight quantization (round-trip dequant).

    BUG FIX v2.0.6-BETA (#20): Renamed from quantize_int4 to simulate_int4
    to accurately reflect behaviour. This is NOT real GPTQ (no Hessian-based
    calibration). It simply quantizes weights to 4-bit grid and dequantizes
    back to float — useful for measuring accuracy degradation, NOT for actual
    model compression. Use export_gguf(quantization='q4_0') for real INT4.
    """
    if not inplace:
        model = copy.deepcopy(model)

    quant_count = 0
    for module in model.modules():
        if isinstance(module, nn.Linear):
            w = module.weight.data.float()
            B_out, B_in = w.shape

            w_groups = w.reshape(-1, group_size)
            w_min = w_groups.min(dim=1, keepdim=True).values
            w_max = w_groups.max(dim=1, keepdim=True).values
            scale = (w_max - w_min) / 15.0
            scale = scale.clamp(min=1e-8)

            w_int4 = ((w_groups - w_min) / scale).round().clamp(0, 15)
            w_deq  = w_int4 * scale + w_min

            module.weight.data = w_deq.reshape(B_out, B_in).to(module.weight.dtype)
            quant_count += 1

    print(
        f"[kolmgformers] INT4 simulation applied to {quant_count} Linear layers "
        f"(group_size={group_size}). NOTE: This is simulation only — use "
        f"export_gguf(quantization='q4_0') for real compressed inference."
    )
    return model


# Backward-compat alias — code that used quantize_int4 will still work
quantize_int4 = simulate_int4


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #57 v2.0.6 : GGUF Export — GERÇEK IMPLEMENTASYON ─────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

# GGUF sabitler
_GGUF_MAGIC   = 0x46554747   # "GGUF" little-endian
_GGUF_VERSION = 3

# Tensor tipi kodları (llama.cpp uyumlu)
_GGML_TYPE_F32  = 0
_GGML_TYPE_F16  = 1
_GGML_TYPE_Q8_0 = 8
_GGML_TYPE_Q4_0 = 2

# Metadata değer tipi kodları
_GGUF_VTYPE_UINT32 = 4
_GGUF_VTYPE_INT32  = 5
_GGUF_VTYPE_FLOAT  = 6
_GGUF_VTYPE_STRING = 8

_Q8_BLOCK_SIZE  = 32   # 32 weights per Q8_0 block
_Q4_BLOCK_SIZE  = 32   # 32 weights per Q4_0 block (2 per byte)


def _gguf_write_str(f, s: str) -> None:
    """Write a GGUF-format length-prefixed UTF-8 string."""
    b = s.encode("utf-8")
    f.write(struct.pack("<Q", len(b)))
    f.write(b)


def _gguf_write_kv_str(f, key: str, value: str) -> None:
    _gguf_write_str(f, key)
    f.write(struct.pack("<I", _GGUF_VTYPE_STRING))
    _gguf_write_str(f, value)


def _gguf_write_kv_uint32(f, key: str, value: int) -> None:
    _gguf_write_str(f, key)
    f.write(struct.pack("<I", _GGUF_VTYPE_UINT32))
    f.write(struct.pack("<I", value))


def _gguf_write_kv_float(f, key: str, value: float) -> None:
    _gguf_write_str(f, key)
    f.write(struct.pack("<I", _GGUF_VTYPE_FLOAT))
    f.write(struct.pack("<f", value))


def _quantize_q8_0(w: torch.Tensor) -> bytes:
    """
    Quantize a 1-D float tensor to GGML Q8_0 format.

    Q8_0 block: 1× float16 scale + 32× int8 weights.
    Block size in bytes: 2 + 32 = 34 bytes.
    """
    w     = w.float().flatten()
    n     = w.numel()
    # Pad to multiple of block size
    pad   = (-n) % _Q8_BLOCK_SIZE
    if pad:
        w = torch.cat([w, torch.zeros(pad, dtype=torch.float32)])

    blocks = w.reshape(-1, _Q8_BLOCK_SIZE)
    n_blocks = (n + _Q8_BLOCK_SIZE - 1) // _Q8_BLOCK_SIZE  # BUG FIX v2.0.6-BETA: real block count
    # Per-block scale: max abs / 127
    scale  = blocks.abs().max(dim=1).values / 127.0
    scale  = scale.clamp(min=1e-8)
    # Quantize
    q      = (blocks / scale.unsqueeze(1)).round().clamp(-128, 127).to(torch.int8)

    buf = bytearray()
    for i in range(n_blocks):  # BUG FIX: only write real blocks, not padded garbage
        # scale stored as float16
        buf += struct.pack("<e", float(scale[i].item()))
        buf += q[i].numpy().tobytes()

    # Trim to n elements worth of blocks (already padded, just keep all)
    return bytes(buf)


def _quantize_q4_0(w: torch.Tensor) -> bytes:
    """
    Quantize a 1-D float tensor to GGML Q4_0 format.

    Q4_0 block: 1× float16 scale + 16 bytes (32× nibble weights).
    Block size in bytes: 2 + 16 = 18 bytes.
    Weights are stored as unsigned nibbles [0,15]; zero-point = 8.
    """
    w     = w.float().flatten()
    n     = w.numel()
    pad   = (-n) % _Q4_BLOCK_SIZE
    if pad:
        w = torch.cat([w, torch.zeros(pad, dtype=torch.float32)])

    blocks = w.reshape(-1, _Q4_BLOCK_SIZE)
    # Q4_0 uses symmetric range: scale = max abs / 7
    scale  = blocks.abs().max(dim=1).values / 7.0
    scale  = scale.clamp(min=1e-8)
    q      = (blocks / scale.unsqueeze(1)).round().clamp(-8, 7).to(torch.int8)
    # Shift to unsigned [0,15]
    q_u    = (q + 8).to(torch.uint8)

    buf = bytearray()
    for i in range(blocks.shape[0]):
        buf += struct.pack("<e", float(scale[i].item()))
        # Pack two nibbles per byte
        row = q_u[i].numpy()
        for j in range(0, _Q4_BLOCK_SIZE, 2):
            byte = (row[j] & 0x0F) | ((row[j + 1] & 0x0F) << 4)
            buf += struct.pack("<B", byte)

    return bytes(buf)


def export_gguf(
    model:       nn.Module,
    output_path: str,
    quantization: str = "q8_0",   # "f32" | "f16" | "q8_0" | "q4_0"
) -> None:
    """
    Feature #57 v2.0.6 — GERÇEK GGUF export implementasyonu.

    Tüm model ağırlıklarını llama.cpp uyumlu GGUF dosyasına yazar.
    llama.cpp converter'a artık gerek yok.

    Desteklenen formatlar:
      - "f32"  : Full precision float32 (en büyük, en doğru)
      - "f16"  : Half precision float16 (~2× küçük)
      - "q8_0" : 8-bit quantization (~4× küçük, minimal kalite kaybı)
      - "q4_0" : 4-bit quantization (~8× küçük, biraz kalite kaybı)

    GGUF dosya yapısı:
      ┌─────────────────────────────────┐
      │ Header (magic + version + meta) │
      │ Tensor bilgi tablosu            │
      │ Alignment padding               │
      │ Tensor verileri (ardışık)       │
      └─────────────────────────────────┘

    Args:
        model:        OMGModel veya herhangi bir nn.Module.
        output_path:  Çıktı .gguf dosya yolu.
        quantization: Ağırlık formatı: "f32" | "f16" | "q8_0" | "q4_0".

    Example::

        model = create_base_model("small")
        export_gguf(model, "kolmgformers-small.gguf", quantization="q8_0")
        # → llama.cpp ile çalıştırılabilir!
    """
    valid_quant = ("f32", "f16", "q8_0", "q4_0")
    if quantization not in valid_quant:
        raise ValueError(f"quantization must be one of {valid_quant}, got '{quantization}'")

    config = getattr(model, "config", None)

    quant_type_map = {
        "f32":  _GGML_TYPE_F32,
        "f16":  _GGML_TYPE_F16,
        "q8_0": _GGML_TYPE_Q8_0,
        "q4_0": _GGML_TYPE_Q4_0,
    }
    ggml_type = quant_type_map[quantization]

    # ── Tüm tensörleri topla ────────────────────────────────────────────────
    state_dict = model.state_dict()
    tensor_names  = list(state_dict.keys())
    tensor_count  = len(tensor_names)

    print(f"[kolmgformers] GGUF export başlıyor → {output_path}")
    print(f"[kolmgformers] Format: {quantization.upper()}, {tensor_count} tensör")

    # ── Metadata kv çiftlerini hazırla ────────────────────────────────────
    kv_items: List[Tuple[str, str, object]] = [
        ("general.architecture", "str", "kolmgformers"),
        ("general.name",         "str",
         getattr(config, "name_or_path", "kolmgformers-v2.0.6")),
        ("kolmgformers.version",    "str", "2.0.6-BETA"),
        ("kolmgformers.quantization", "str", quantization),
    ]

    if config is not None:
        kv_items += [
            ("kolmgformers.context_length",    "uint32", config.max_length),
            ("kolmgformers.embedding_length",  "uint32", config.hidden_size),
            ("kolmgformers.block_count",       "uint32", config.num_layers),
            ("kolmgformers.attention.head_count",    "uint32", config.num_heads),
            ("kolmgformers.attention.head_count_kv", "uint32",
             config.num_kv_heads or config.num_heads),
            ("kolmgformers.vocab_size",        "uint32", config.vocab_size),
            ("kolmgformers.feed_forward_length", "uint32", config.intermediate_size),
            ("kolmgformers.rope_base",         "float",  float(config.rope_base)),
        ]

    kv_count = len(kv_items)

    # ━━ Tensör verilerini önce RAM'a quantize et ━━━━━━━━━━━━━━━━━━━━━━━━━━
    quantized_bufs: List[bytes] = []
    tensor_infos: List[dict]    = []

    for name, tensor in state_dict.items():
        t_cpu = tensor.detach().cpu()
        shape = list(t_cpu.shape)

        # Scalar / embedding gibi special tensörleri her zaman f32 yaz
        is_1d_or_small = (t_cpu.dim() < 2) or (t_cpu.numel() < _Q8_BLOCK_SIZE)

        if is_1d_or_small or quantization == "f32":
            data    = t_cpu.float().flatten().numpy().tobytes()
            t_type  = _GGML_TYPE_F32

        elif quantization == "f16":
            data    = t_cpu.half().flatten().numpy().tobytes()
            t_type  = _GGML_TYPE_F16

        elif quantization == "q8_0":
            # 1D tensörleri f32 olarak koru
            if t_cpu.dim() < 2:
                data   = t_cpu.float().flatten().numpy().tobytes()
                t_type = _GGML_TYPE_F32
            else:
                data   = _quantize_q8_0(t_cpu)
                t_type = _GGML_TYPE_Q8_0

        elif quantization == "q4_0":
            if t_cpu.dim() < 2:
                data   = t_cpu.float().flatten().numpy().tobytes()
                t_type = _GGML_TYPE_F32
            else:
                data   = _quantize_q4_0(t_cpu)
                t_type = _GGML_TYPE_Q4_0

        else:
            data   = t_cpu.float().flatten().numpy().tobytes()
            t_type = _GGML_TYPE_F32

        quantized_bufs.append(data)
        tensor_infos.append({
            "name":   name,
            "shape":  shape,
            "type":   t_type,
            "n_dims": len(shape),
            "size":   len(data),
        })

    # ━━ Dosyayı yaz ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
    with open(output_path, "wb") as f:
        # ── Magic + version + counts ───────────────────────────────────────
        f.write(struct.pack("<I", _GGUF_MAGIC))
        f.write(struct.pack("<I", _GGUF_VERSION))
        f.write(struct.pack("<Q", tensor_count))   # n_tensors
        f.write(struct.pack("<Q", kv_count))       # n_kv

        # ── Metadata ──────────────────────────────────────────────────────
        for key, vtype, val in kv_items:
            if vtype == "str":
                _gguf_write_kv_str(f, key, val)
            elif vtype == "uint32":
                _gguf_write_kv_uint32(f, key, val)
            elif vtype == "float":
                _gguf_write_kv_float(f, key, val)

        # ── Tensor bilgi tablosu ──────────────────────────────────────────
        # Her tensör için: name, n_dims, shape[], type, offset (placeholder)
        offset_positions: List[int] = []
        for info in tensor_infos:
            _gguf_write_str(f, info["name"])
            f.write(struct.pack("<I", info["n_dims"]))
            # Shape GGUF'ta little-endian uint64, ters sırada
            for dim in reversed(info["shape"]):
                f.write(struct.pack("<Q", dim))
            f.write(struct.pack("<I", info["type"]))
            # Offset placeholder — sonra doldurulacak
            offset_positions.append(f.tell())
            f.write(struct.pack("<Q", 0))   # placeholder

        # ── GGUF alignment padding (32-byte) ──────────────────────────────
        GGUF_ALIGNMENT = 32
        pos = f.tell()
        pad = (GGUF_ALIGNMENT - pos % GGUF_ALIGNMENT) % GGUF_ALIGNMENT
        f.write(b"\x00" * pad)

        # ── Tensor verileri + offset güncellemeleri ────────────────────────
        data_start = f.tell()
        offsets: List[int] = []

        for buf in quantized_bufs:
            offsets.append(f.tell() - data_start)
            f.write(buf)
            # Her tensörden sonra alignment
            cur = f.tell()
            pad2 = (GGUF_ALIGNMENT - (cur - data_start) % GGUF_ALIGNMENT) % GGUF_ALIGNMENT
            if pad2:
                f.write(b"\x00" * pad2)

        # ── Offset placeholder'larını güncelle ────────────────────────────
        for pos_offset, real_offset in zip(offset_positions, offsets):
            f.seek(pos_offset)
            f.write(struct.pack("<Q", real_offset))

        # BUG FIX v2.0.6-BETA (#12): seek to end and write magic tail for
        # integrity verification — fixes dangling seek position after backfill.
        f.seek(0, 2)   # SEEK_END
        f.write(struct.pack("<I", _GGUF_MAGIC))   # final magic tail

    # ── Özet ─────────────────────────────────────────────────────────────────
    file_size_mb = os.path.getsize(output_path) / 1e6
    total_params = sum(t.numel() for t in state_dict.values())
    print(
        f"[kolmgformers] ✓ GGUF export tamamlandı → {output_path}\n"
        f"[kolmgformers]   Tensör sayısı : {tensor_count}\n"
        f"[kolmgformers]   Toplam param  : {total_params / 1e6:.1f}M\n"
        f"[kolmgformers]   Dosya boyutu  : {file_size_mb:.1f} MB\n"
        f"[kolmgformers]   Format        : {quantization.upper()}"
    )


# Backward-compat alias
export_gguf_stub = export_gguf


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #58 : RAG Context Injector ───────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class RAGContextInjector:
    """
    Feature #58 — Retrieval-Augmented Generation (RAG) context injector.

    Wraps an OMGModel and a retrieval function to automatically prepend
    retrieved context documents before generation.
    """

    def __init__(
        self,
        model,
        tokenizer,
        retriever:        Callable[[str], List[str]],
        max_context_len:  int = 512,
        top_k_docs:       int = 3,
        context_template: str = "Context:\n{context}\n\nQuery: ",
    ):
        self.model            = model
        self.tokenizer        = tokenizer
        self.retriever        = retriever
        self.max_context_len  = max_context_len
        self.top_k_docs       = top_k_docs
        self.context_template = context_template

    def build_prompt(
        self,
        query:  str,
        docs:   Optional[List[str]] = None,
    ) -> str:
        if docs is None:
            # BUG FIX v2.0.6-BETA (#16): graceful fallback if retriever raises
            try:
                docs = self.retriever(query)[: self.top_k_docs]
            except Exception as exc:
                import warnings
                warnings.warn(
                    f"[kolmgformers] RAGContextInjector: retriever raised {type(exc).__name__}: "
                    f"{exc}. Falling back to empty context.",
                    RuntimeWarning,
                    stacklevel=2,
                )
                docs = []

        context = "\n\n".join(f"[{i+1}] {d}" for i, d in enumerate(docs))
        return self.context_template.format(context=context) + query

    @torch.no_grad()
    def generate(
        self,
        query:      str,
        new_tokens: int   = 128,
        steps:      int   = 10,
        temperature: float = 1.0,
        docs:       Optional[List[str]] = None,
    ) -> str:
        prompt     = self.build_prompt(query, docs)
        prompt_ids = torch.tensor(
            self.tokenizer.encode(prompt)[-self.max_context_len:],
            dtype=torch.long,
        ).unsqueeze(0)

        output_ids = self.model.generate(
            prompt_ids,
            new_tokens  = new_tokens,
            steps       = steps,
            temperature = temperature,
        )
        return self.tokenizer.decode(
            output_ids[0, prompt_ids.shape[1]:].tolist()
        )


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #59 : Dynamic Batching Engine ────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class DynamicBatchingEngine:
    """
    Feature #59 — Dynamic / continuous batching for high-throughput serving.

    Groups incoming generation requests into batches dynamically,
    maximizing GPU utilization by filling batches based on token budget
    rather than fixed batch size.
    """

    def __init__(
        self,
        model,
        max_tokens_per_batch: int = 8192,
        max_batch_size:       int = 32,
        timeout_ms:           int = 50,
    ):
        import queue, threading, concurrent.futures
        self.model                = model
        self.max_tokens_per_batch = max_tokens_per_batch
        self.max_batch_size       = max_batch_size
        self.timeout_ms           = timeout_ms
        self._queue               = queue.Queue()
        self._thread              = None
        self._stop_event          = threading.Event()
        self._futures_module      = concurrent.futures
        self._threading           = threading

    def submit(
        self,
        prompt_ids:  List[int],
        new_tokens:  int   = 128,
        steps:       int   = 10,
        temperature: float = 1.0,
    ):
        future = self._futures_module.Future()
        self._queue.put({
            "prompt_ids":  prompt_ids,
            "new_tokens":  new_tokens,
            "steps":       steps,
            "temperature": temperature,
            "future":      future,
        })
        return future

    def start(self) -> None:
        self._stop_event.clear()
        self._thread = self._threading.Thread(
            target=self._worker, daemon=True, name="kolmgformers-batching"
        )
        self._thread.start()
        print("[kolmgformers] DynamicBatchingEngine started.")

    def stop(self) -> None:
        self._stop_event.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        print("[kolmgformers] DynamicBatchingEngine stopped.")

    def _worker(self) -> None:
        import queue
        while not self._stop_event.is_set():
            batch = []
            total_tokens = 0

            deadline = self.timeout_ms / 1000.0
            try:
                first = self._queue.get(timeout=deadline)
                batch.append(first)
                total_tokens += len(first["prompt_ids"]) + first["new_tokens"]

                while (
                    len(batch) < self.max_batch_size
                    and total_tokens < self.max_tokens_per_batch
                ):
                    try:
                        req = self._queue.get_nowait()
                        token_cost = len(req["prompt_ids"]) + req["new_tokens"]
                        if total_tokens + token_cost > self.max_tokens_per_batch:
                            self._queue.put(req)
                            break
                        batch.append(req)
                        total_tokens += token_cost
                    except queue.Empty:
                        break

            except queue.Empty:
                continue

            if batch:
                self._process_batch(batch)

    def _process_batch(self, batch: list) -> None:
        device = next(self.model.parameters()).device
        pad_id = self.model.config.pad_token_id

        prompt_ids_list = [req["prompt_ids"] for req in batch]
        max_p = max(len(p) for p in prompt_ids_list)

        padded = torch.full((len(batch), max_p), pad_id, dtype=torch.long, device=device)
        attn   = torch.zeros_like(padded)
        for i, ids in enumerate(prompt_ids_list):
            padded[i, max_p - len(ids):] = torch.tensor(ids, dtype=torch.long, device=device)
            attn[i,   max_p - len(ids):] = 1

        max_new = max(req["new_tokens"] for req in batch)
        steps   = batch[0]["steps"]
        temp    = batch[0]["temperature"]

        try:
            outputs = self.model.generate(
                padded,
                attention_mask=attn,   # BUG FIX v2.0.6-BETA: pass attn mask
                new_tokens=max_new,
                steps=steps,
                temperature=temp,
            )
            for i, req in enumerate(batch):
                gen_start = max_p
                result    = outputs[i, gen_start: gen_start + req["new_tokens"]]
                req["future"].set_result(result.cpu().tolist())
        except Exception as exc:
            for req in batch:
                req["future"].set_exception(exc)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #60 : Chunked Long-Document Attention ────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class ChunkedLongDocumentAttention(nn.Module):
    """
    Feature #60 — Chunked attention with sliding-context fusion for long docs.

    Enables processing documents longer than the model's max_length.
    """

    def __init__(
        self,
        model,
        chunk_size:       int  = 512,
        overlap:          int  = 64,
        use_recurrence:   bool = False,
        recurrence_dim:   int  = 256,
    ):
        super().__init__()
        self.model          = model
        self.chunk_size     = chunk_size
        self.overlap        = overlap
        self.use_recurrence = use_recurrence

        if use_recurrence:
            C = model.config.hidden_size
            self.summary_proj = nn.Linear(C, recurrence_dim, bias=False)
            self.context_proj = nn.Linear(recurrence_dim, C, bias=False)
            nn.init.zeros_(self.context_proj.weight)

    @torch.no_grad()
    def forward(
        self,
        input_ids:      torch.Tensor,
        timesteps:      Optional[torch.Tensor] = None,
        attention_mask: Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        B, T = input_ids.shape
        if B != 1:
            raise ValueError("ChunkedLongDocumentAttention supports batch_size=1 only.")

        device        = input_ids.device
        step          = self.chunk_size - self.overlap
        V             = self.model.config.vocab_size
        fused_logits  = torch.zeros(1, T, V, device=device)
        weight_sum    = torch.zeros(1, T, 1, device=device)

        ramp = torch.ones(self.chunk_size, device=device)
        if self.overlap > 0:
            fade_in  = torch.linspace(0.5, 1.0, self.overlap, device=device)
            fade_out = torch.linspace(1.0, 0.5, self.overlap, device=device)
            ramp[:self.overlap]  = fade_in
            ramp[-self.overlap:] = torch.min(ramp[-self.overlap:], fade_out)

        for start in range(0, T, step):
            end     = min(start + self.chunk_size, T)
            chunk   = input_ids[:, start:end]
            chunk_t = None if timesteps is None else timesteps
            chunk_m = None
            if attention_mask is not None:
                chunk_m = attention_mask[:, start:end]

            out = self.model(
                chunk,
                timesteps=chunk_t,
                attention_mask=chunk_m,
            )
            chunk_logits = out.logits
            L            = end - start

            w = ramp[:L].unsqueeze(0).unsqueeze(-1)
            fused_logits[:, start:end, :]  += chunk_logits * w
            weight_sum[:, start:end, :]    += w

            if end >= T:
                break

        fused_logits = fused_logits / weight_sum.clamp(min=1e-8)
        return fused_logits

    def generate_long(
        self,
        input_ids:  torch.Tensor,
        new_tokens: int   = 256,
        steps:      int   = 10,
        temperature: float = 1.0,
    ) -> torch.Tensor:
        B, T = input_ids.shape
        device = input_ids.device
        mask_id = self.model.config.mask_token_id

        gen_start = max(0, T - self.chunk_size + new_tokens)
        prompt_ctx = input_ids[:, gen_start:]

        output_ids = self.model.generate(
            prompt_ctx,
            new_tokens=new_tokens,
            steps=steps,
            temperature=temperature,
        )
        return torch.cat([input_ids[:, :gen_start], output_ids], dim=1)
