"""
kolmgformers/attention.py  v2.0.6-BETA
=========================================
Advanced attention mechanisms for OMGFormer.

Changes in v2.0.6-BETA:
  NEW Feature #9  — Flash Attention 2 GERÇEK implementasyonu.
        v2.0.5'te yalnızca bir flag vardı, içi boştu (torch SDPA'ya
        düşüyordu).  Şimdi:
          1. flash_attn paketi varsa flash_attn.flash_attn_func kullanılır.
          2. Yoksa PyTorch 2.0+ SDPA otomatik FA2 kernel seçimi yapılır
             (torch.backends.cuda.enable_flash_sdp).
          3. Hiçbiri yoksa standart SDPA fallback.
        Bu üç katmanlı strateji sayesinde asla hata fırlatmaz.

  FIX BUG #A1-A5 — v2.0.5-BETA'dan tüm düzeltmeler korundu.
  FIX — BlockSparseAttention artık dispatch tablosuna eklenmiş (BUG #A5).

All v2.0.5 features preserved:
  Feature #1  — ALiBi positional bias
  Feature #2  — YaRN RoPE extended context
  Feature #3  — NTK-aware RoPE scaling
  Feature #4  — LongRoPE position interpolation
  Feature #5  — Sliding window (local) attention
  Feature #6  — Multi-Head Latent Attention (MLA)
  Feature #7  — Linear attention approximation
  Feature #8  — Block-sparse attention
  Feature #9  — Flash Attention 2 (GERÇEK implementasyon - v2.0.6)
  Feature #10 — T5-style relative position bias
"""

from __future__ import annotations

import math
import warnings
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from kolmgformers.configuration import OMGConfig

# ── v2.0.7 TASA import (lazy — avoids circular imports) ─────────────────────
_TASA_MOD = None

def _get_tasa():
    global _TASA_MOD
    if _TASA_MOD is None:
        try:
            import kolmgformers.tasa as _m
            _TASA_MOD = _m
        except ImportError:
            pass
    return _TASA_MOD


__all__ = [
    "RotaryEmbedding",
    "YaRNRotaryEmbedding",
    "NTKRotaryEmbedding",
    "LongRoPEEmbedding",
    "ALiBiBias",
    "T5RelativePositionBias",
    "GroupedQueryAttention",
    "MultiHeadLatentAttention",
    "SlidingWindowAttention",
    "LinearAttention",
    "BlockSparseAttention",
    "build_attention",
    "flash_attention_forward",   # NEW v2.0.6: exposed for testing
]


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #9 v2.0.6: Flash Attention 2 gerçek implementasyonu ─────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

# One-time availability check — no repeated import overhead
_FLASH_ATTN_AVAILABLE: Optional[bool] = None
_TORCH_SDPA_FLASH_AVAILABLE: Optional[bool] = None


def _check_flash_attn() -> bool:
    global _FLASH_ATTN_AVAILABLE
    if _FLASH_ATTN_AVAILABLE is None:
        try:
            import flash_attn  # noqa: F401
            _FLASH_ATTN_AVAILABLE = True
        except ImportError:
            _FLASH_ATTN_AVAILABLE = False
    return _FLASH_ATTN_AVAILABLE


def _check_torch_sdpa_flash() -> bool:
    """Check if PyTorch SDPA can use the Flash Attention kernel."""
    global _TORCH_SDPA_FLASH_AVAILABLE
    if _TORCH_SDPA_FLASH_AVAILABLE is None:
        try:
            _TORCH_SDPA_FLASH_AVAILABLE = (
                torch.cuda.is_available()
                and hasattr(torch.backends.cuda, "enable_flash_sdp")
            )
        except Exception:
            _TORCH_SDPA_FLASH_AVAILABLE = False
    return _TORCH_SDPA_FLASH_AVAILABLE


def flash_attention_forward(
    q:           torch.Tensor,
    k:           torch.Tensor,
    v:           torch.Tensor,
    attn_mask:   Optional[torch.Tensor] = None,
    dropout_p:   float = 0.0,
    is_causal:   bool  = False,
    softmax_scale: Optional[float] = None,
) -> torch.Tensor:
    """
    Feature #9 — Flash Attention 2 gerçek implementasyonu (v2.0.6).

    Üç katmanlı strateji — asla hata fırlatmaz:

    1. flash_attn paketi yüklüyse → flash_attn.flash_attn_func (CUDA, fastest)
    2. PyTorch >= 2.0 + CUDA varsa → torch SDPA with flash kernel enabled
    3. Her durumda → standart scaled_dot_product_attention (CPU/MPS/CUDA)

    Args:
        q:             Query,  shape (B, H, T, D).
        k:             Key,    shape (B, H, S, D).
        v:             Value,  shape (B, H, S, D).
        attn_mask:     Float bias, shape (B, 1, T, S) or None.
        dropout_p:     Attention dropout (only applied during training).
        is_causal:     If True, apply causal mask.
        softmax_scale: Scale for QK^T (default: 1/sqrt(D)).

    Returns:
        Attention output, shape (B, H, T, D).
    """
    # ── Strateji 1: flash_attn paketi ─────────────────────────────────────────
    if _check_flash_attn() and q.is_cuda and attn_mask is None:
        try:
            from flash_attn import flash_attn_func
            # flash_attn_func beklentisi: (B, T, H, D)
            B, H, T, D = q.shape
            q_fa = q.transpose(1, 2).contiguous()   # (B, T, H, D)
            k_fa = k.transpose(1, 2).contiguous()
            v_fa = v.transpose(1, 2).contiguous()
            scale = softmax_scale or (D ** -0.5)
            out = flash_attn_func(
                q_fa, k_fa, v_fa,
                dropout_p=dropout_p,
                softmax_scale=scale,
                causal=is_causal,
            )                                        # (B, T, H, D)
            return out.transpose(1, 2)               # (B, H, T, D)
        except Exception as e:
            # CUDA OOM, dtype mismatch, vb. → strateji 2'ye düş
            warnings.warn(
                f"[kolmgformers] flash_attn failed ({e}), falling back to SDPA.",
                stacklevel=2,
            )

    # ── Strateji 2: PyTorch SDPA with flash kernel hint ───────────────────────
    if _check_torch_sdpa_flash() and q.is_cuda:
        try:
            with torch.backends.cuda.sdp_kernel(
                enable_flash=True,
                enable_math=True,
                enable_mem_efficient=True,
            ):
                return F.scaled_dot_product_attention(
                    q, k, v,
                    attn_mask=attn_mask,
                    dropout_p=dropout_p,
                    is_causal=is_causal,
                )
        except Exception:
            pass  # strateji 3'e düş

    # ── Strateji 3: Standart SDPA (CPU/MPS/any device) ───────────────────────
    return F.scaled_dot_product_attention(
        q, k, v,
        attn_mask=attn_mask,
        dropout_p=dropout_p,
        is_causal=is_causal,
    )


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Utility helpers ──────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], dim=-1)


def _apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """BUG FIX #A1 (preserved): cast cos/sin to x.dtype at use-time."""
    cos = cos.to(x.dtype)
    sin = sin.to(x.dtype)
    return x * cos + _rotate_half(x) * sin


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #1 : ALiBi ───────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class ALiBiBias(nn.Module):
    """ALiBi — Attention with Linear Biases (Press et al., 2022)."""

    def __init__(self, num_heads: int, max_length: int = 4096):
        super().__init__()
        self.num_heads = num_heads
        slopes = self._get_slopes(num_heads)
        self.register_buffer("slopes", slopes, persistent=False)
        self._cache: Optional[torch.Tensor] = None
        self._cache_len: int = 0
        self._precompute(max_length)

    @staticmethod
    def _get_slopes(n: int) -> torch.Tensor:
        def _slopes_power_of_2(n: int) -> list:
            start = 2 ** (-(2 ** -(math.log2(n) - 3)))
            return [start * (start ** i) for i in range(n)]
        if math.log2(n).is_integer():
            return torch.tensor(_slopes_power_of_2(n), dtype=torch.float32)
        closest_pow2 = 2 ** math.floor(math.log2(n))
        base_slopes  = _slopes_power_of_2(closest_pow2)
        extra_slopes = _slopes_power_of_2(2 * closest_pow2)[0::2]
        return torch.tensor((base_slopes + extra_slopes)[:n], dtype=torch.float32)

    def _precompute(self, length: int) -> None:
        if length <= self._cache_len:
            return
        positions = torch.arange(length, dtype=torch.float32)
        distance  = positions.unsqueeze(0) - positions.unsqueeze(1)
        bias      = -distance.abs().unsqueeze(0) * self.slopes.view(-1, 1, 1)
        self._cache     = bias.unsqueeze(0)
        self._cache_len = length

    def forward(self, seq_len: int, device: torch.device) -> torch.Tensor:
        self._precompute(seq_len)
        return self._cache[:, :, :seq_len, :seq_len].to(device)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Standard RoPE ────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class RotaryEmbedding(nn.Module):
    """RoPE — Rotary Position Embedding (Su et al., 2021)."""

    def __init__(self, head_dim: int, max_length: int = 4096, base: int = 10_000, scaling: float = 1.0):
        super().__init__()
        self.head_dim = head_dim
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim)) / scaling
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._cache_len: int = 0
        self._cos_cache: Optional[torch.Tensor] = None
        self._sin_cache: Optional[torch.Tensor] = None
        self._extend(max_length)

    def _extend(self, length: int) -> None:
        if length <= self._cache_len:
            return
        t   = torch.arange(length, device=self.inv_freq.device, dtype=torch.float32)
        fr  = torch.outer(t, self.inv_freq)
        emb = torch.cat([fr, fr], dim=-1)
        self._cos_cache = emb.cos().unsqueeze(0).unsqueeze(0)
        self._sin_cache = emb.sin().unsqueeze(0).unsqueeze(0)
        self._cache_len = length

    def forward(self, q: torch.Tensor, k: torch.Tensor):
        seq = max(q.shape[2], k.shape[2])
        self._extend(seq)
        cos = self._cos_cache[:, :, :seq, :]
        sin = self._sin_cache[:, :, :seq, :]
        return _apply_rope(q, cos, sin), _apply_rope(k, cos, sin)


# ── Feature #2 : YaRN RoPE ───────────────────────────────────────────────────

class YaRNRotaryEmbedding(RotaryEmbedding):
    """YaRN — Yet another RoPE extensioN (Peng et al., 2023). BUG FIX #A2 preserved."""

    def __init__(self, head_dim: int, max_length: int = 4096, base: int = 10_000,
                 scale: float = 1.0, yarn_factor: float = 32.0):
        # BUG FIX #A2: override inv_freq BEFORE calling super().__init__
        nn.Module.__init__(self)
        self.head_dim = head_dim
        alpha = yarn_factor
        beta  = 1.0
        d     = head_dim
        inv_freq_base = 1.0 / (base ** (torch.arange(0, d, 2).float() / d))
        yarn_scale    = torch.where(
            torch.arange(d // 2).float() < d // 4,
            torch.ones(d // 2) / (scale * alpha),
            torch.ones(d // 2) * (1.0 / beta),
        )
        inv_freq = inv_freq_base * yarn_scale
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._cache_len = 0
        self._cos_cache = None
        self._sin_cache = None
        self._extend(max_length)


# ── Feature #3 : NTK-aware RoPE ──────────────────────────────────────────────

class NTKRotaryEmbedding(RotaryEmbedding):
    """NTK-aware scaled RoPE (Bloc97, 2023)."""

    def __init__(self, head_dim: int, max_length: int = 4096, base: int = 10_000,
                 scale: float = 1.0, ntk_factor: float = 2.0):
        scaled_base = int(base * (scale * ntk_factor - (ntk_factor - 1)) ** (head_dim / (head_dim - 2)))
        super().__init__(head_dim, max_length, base=scaled_base)


# ── Feature #4 : LongRoPE ─────────────────────────────────────────────────────

class LongRoPEEmbedding(RotaryEmbedding):
    """LongRoPE position interpolation (Ding et al., 2024)."""

    def __init__(self, head_dim: int, max_length: int = 4096, base: int = 10_000,
                 scale: float = 1.0):
        super().__init__(head_dim, max_length, base=base, scaling=scale)


# ── Feature #10 : T5 Relative Position Bias ──────────────────────────────────

class T5RelativePositionBias(nn.Module):
    """T5-style relative position bias (Raffel et al., 2020)."""

    def __init__(self, num_heads: int, num_buckets: int = 32, max_distance: int = 128):
        super().__init__()
        self.num_heads    = num_heads
        self.num_buckets  = num_buckets
        self.max_distance = max_distance
        self.bias_table   = nn.Embedding(num_buckets, num_heads)

    def _relative_position_bucket(self, rel_pos: torch.Tensor) -> torch.Tensor:
        n    = -rel_pos
        n    = torch.clamp(n, min=0)
        half = self.num_buckets // 2
        is_small = n < half
        val_if_small = n
        val_if_large = half + (
            torch.log(n.float() / half + 1e-6)
            / math.log(self.max_distance / half)
            * (self.num_buckets - half)
        ).long().clamp(max=self.num_buckets - half - 1)
        return torch.where(is_small, val_if_small, val_if_large)

    def forward(self, query_len: int, key_len: int, device: torch.device) -> torch.Tensor:
        q_pos = torch.arange(query_len, device=device)
        k_pos = torch.arange(key_len, device=device)
        rel   = k_pos.unsqueeze(0) - q_pos.unsqueeze(1)
        bkt   = self._relative_position_bucket(rel)
        bias  = self.bias_table(bkt)
        return bias.permute(2, 0, 1).unsqueeze(0)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Internal helper: build RoPE from config ───────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def _build_rope(config: OMGConfig) -> Optional[RotaryEmbedding]:
    if config.pos_encoding != "rope":
        return None
    t = config.rope_scaling_type
    if t == "yarn":
        return YaRNRotaryEmbedding(config.head_dim, config.max_length, config.rope_base,
                                   config.rope_scaling, config.rope_yarn_factor)
    if t == "ntk":
        return NTKRotaryEmbedding(config.head_dim, config.max_length, config.rope_base,
                                  config.rope_scaling, config.rope_ntk_factor)
    if t == "longcope":
        return LongRoPEEmbedding(config.head_dim, config.max_length, config.rope_base,
                                 config.rope_scaling)
    return RotaryEmbedding(config.head_dim, config.max_length, config.rope_base,
                           config.rope_scaling)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Grouped Query Attention — now Flash-Attention-2-aware ────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class GroupedQueryAttention(nn.Module):
    """
    GQA — Grouped Query Attention.

    v2.0.7: TASA (Timestep-Adaptive Sparse Attention) entegrasyonu.
      Eğer config'de tasa_config varsa ve enabled=True ise, her forward'da
      TASAGatingNetwork t_emb'yi alarak sparsity mask üretir ve pre-softmax
      logit'lere additive log-mask olarak uygular. Paper: TASA v2.0.7.

    v2.0.6: Artık use_flash_attn=True olduğunda flash_attention_forward()
    kullanıyor (Feature #9 gerçek implementasyonu).

    Modes:
      num_kv_heads == num_heads  → MHA
      num_kv_heads == 1          → MQA
      else                       → GQA
    """

    def __init__(self, config: OMGConfig):
        super().__init__()
        self.H          = config.num_heads
        self.Hkv        = config.num_kv_heads
        self.D          = config.head_dim
        self.C          = config.hidden_size
        self.ratio      = self.H // self.Hkv
        self.drop_p     = config.attention_dropout
        self.use_flash  = config.use_flash_attn

        self.q_proj = nn.Linear(self.C, self.H   * self.D, bias=False)
        self.k_proj = nn.Linear(self.C, self.Hkv * self.D, bias=False)
        self.v_proj = nn.Linear(self.C, self.Hkv * self.D, bias=False)
        self.out    = nn.Linear(self.C, self.C,             bias=False)

        self.pos_enc = _build_rope(config)

        self.alibi: Optional[ALiBiBias] = None
        if config.pos_encoding == "alibi":
            self.alibi = ALiBiBias(self.H, config.max_length)

        self.t5_bias: Optional[T5RelativePositionBias] = None
        if config.pos_encoding == "t5":
            self.t5_bias = T5RelativePositionBias(self.H)

        # ── v2.0.7 TASA ───────────────────────────────────────────────────────
        self.tasa_gating: Optional[nn.Module] = None
        self._tasa_cfg = None
        tasa_cfg = getattr(config, "tasa_config", None)
        if tasa_cfg is not None and tasa_cfg.enabled:
            tasa_mod = _get_tasa()
            if tasa_mod is not None:
                self.tasa_gating = tasa_mod.TASAGatingNetwork(self.C)
                self._tasa_cfg   = tasa_cfg

    def forward(
        self,
        x:         torch.Tensor,
        attn_bias: Optional[torch.Tensor] = None,
        cache:     Optional[object]       = None,  # KVCache
        layer_idx: int                    = 0,
        t_emb:     Optional[torch.Tensor] = None,  # v2.0.7: for TASA
    ) -> torch.Tensor:
        B, T, C = x.shape

        q = self.q_proj(x).reshape(B, T, self.H,   self.D).transpose(1, 2)
        k = self.k_proj(x).reshape(B, T, self.Hkv, self.D).transpose(1, 2)
        v = self.v_proj(x).reshape(B, T, self.Hkv, self.D).transpose(1, 2)

        if self.pos_enc is not None:
            q, k = self.pos_enc(q, k)

        # BUG FIX v2.0.6-BETA: KVCache integration for autoregressive inference
        if cache is not None:
            k, v = cache.update(layer_idx, k, v)

        if self.ratio > 1:
            k = k.repeat_interleave(self.ratio, dim=1)
            v = v.repeat_interleave(self.ratio, dim=1)

        bias = attn_bias
        if self.alibi is not None:
            alibi_b = self.alibi(T, x.device).to(x.dtype)
            bias = alibi_b if bias is None else bias + alibi_b
        if self.t5_bias is not None:
            t5_b = self.t5_bias(T, T, x.device).to(x.dtype)
            bias = t5_b if bias is None else bias + t5_b

        # ── v2.0.7 TASA: apply timestep-adaptive sparse mask ─────────────────
        # TASA runs on float32 pre-softmax logits (consistent with attn_bias float32).
        # Flash Attention path: TASA mask is applied BEFORE the flash call by
        # computing QK^T manually first, masking, then passing as attn_mask.
        # Standard SDPA path: TASA mask is passed as additive attn_mask.
        tasa_bias: Optional[torch.Tensor] = None
        if self.tasa_gating is not None and self._tasa_cfg is not None:
            tasa_mod = _get_tasa()
            if tasa_mod is not None:
                # Compute raw QK^T logits for TASA mask generation (float32)
                scale    = self.D ** -0.5
                qk_raw   = torch.matmul(q.float(), k.float().transpose(-2, -1)) * scale  # (B,H,T,T)
                tasa_bias, _tasa_sparsity = tasa_mod.apply_tasa_mask(
                    logits       = qk_raw,
                    t_emb        = t_emb,
                    gating_net   = self.tasa_gating,
                    local_window = self._tasa_cfg.local_window,
                    gamma        = self._tasa_cfg.gamma,
                    training     = self.training,
                    inference_only = self._tasa_cfg.inference_only,
                )
                # Store sparsity metric for OMGModel._collect_tasa_sparsity()
                self._last_tasa_sparsity = _tasa_sparsity
                # tasa_bias encodes keep=0 / prune=-inf as a (B,1,T,T) additive bias
                # Combine with existing attn_bias (both float32)
                if bias is not None:
                    bias = bias + tasa_bias
                else:
                    bias = tasa_bias

        # NEW v2.0.6: Flash Attention 2 path
        if self.use_flash:
            out = flash_attention_forward(
                q, k, v,
                attn_mask=bias,
                dropout_p=self.drop_p if self.training else 0.0,
                is_causal=False,
            )
        else:
            out = F.scaled_dot_product_attention(
                q, k, v,
                attn_mask=bias,
                dropout_p=self.drop_p if self.training else 0.0,
                is_causal=False,
            )

        out = out.transpose(1, 2).reshape(B, T, C)
        return self.out(out)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #6 : Multi-Head Latent Attention (MLA) ───────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class MultiHeadLatentAttention(nn.Module):
    """MLA — Multi-Head Latent Attention (DeepSeek-V2)."""

    def __init__(self, config: OMGConfig):
        super().__init__()
        self.H      = config.num_heads
        self.D      = config.head_dim
        self.C      = config.hidden_size
        self.latent = config.mla_latent_dim
        self.drop_p = config.attention_dropout
        self.use_flash = config.use_flash_attn

        self.q_proj  = nn.Linear(self.C, self.H * self.D,  bias=False)
        self.kv_down = nn.Linear(self.C, self.latent,       bias=False)
        self.kv_up_k = nn.Linear(self.latent, self.H * self.D, bias=False)
        self.kv_up_v = nn.Linear(self.latent, self.H * self.D, bias=False)
        self.out     = nn.Linear(self.H * self.D, self.C,  bias=False)
        self.pos_enc = _build_rope(config)

    def forward(self, x: torch.Tensor, attn_bias: Optional[torch.Tensor] = None) -> torch.Tensor:
        B, T, C = x.shape
        q  = self.q_proj(x).reshape(B, T, self.H, self.D).transpose(1, 2)
        kv = self.kv_down(x)
        k  = self.kv_up_k(kv).reshape(B, T, self.H, self.D).transpose(1, 2)
        v  = self.kv_up_v(kv).reshape(B, T, self.H, self.D).transpose(1, 2)
        if self.pos_enc is not None:
            q, k = self.pos_enc(q, k)

        if self.use_flash:
            out = flash_attention_forward(q, k, v, attn_mask=attn_bias,
                                          dropout_p=self.drop_p if self.training else 0.0)
        else:
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_bias,
                                                  dropout_p=self.drop_p if self.training else 0.0)
        out = out.transpose(1, 2).reshape(B, T, self.H * self.D)
        return self.out(out)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #5 : Sliding Window Attention ────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class SlidingWindowAttention(nn.Module):
    """
    Local sliding-window attention.
    BUG FIX #A3 preserved: window mask built in float32, cast only when adding bias.
    """

    def __init__(self, config: OMGConfig):
        super().__init__()
        self.H      = config.num_heads
        self.Hkv    = config.num_kv_heads
        self.D      = config.head_dim
        self.C      = config.hidden_size
        self.ratio  = self.H // self.Hkv
        self.window = config.sliding_window
        self.drop_p = config.attention_dropout
        self.use_flash = config.use_flash_attn

        self.q_proj = nn.Linear(self.C, self.H   * self.D, bias=False)
        self.k_proj = nn.Linear(self.C, self.Hkv * self.D, bias=False)
        self.v_proj = nn.Linear(self.C, self.Hkv * self.D, bias=False)
        self.out    = nn.Linear(self.C, self.C,             bias=False)
        self.pos_enc = _build_rope(config)

    def _window_mask(self, T: int, device: torch.device) -> torch.Tensor:
        """Build float32 window mask (BUG FIX #A3)."""
        i   = torch.arange(T, device=device).unsqueeze(1)
        j   = torch.arange(T, device=device).unsqueeze(0)
        out_of_window = (i - j).abs() > self.window
        # float32 — cast at the call site if needed
        return out_of_window.float() * -1e9

    def forward(self, x: torch.Tensor, attn_bias: Optional[torch.Tensor] = None) -> torch.Tensor:
        B, T, C = x.shape
        q = self.q_proj(x).reshape(B, T, self.H,   self.D).transpose(1, 2)
        k = self.k_proj(x).reshape(B, T, self.Hkv, self.D).transpose(1, 2)
        v = self.v_proj(x).reshape(B, T, self.Hkv, self.D).transpose(1, 2)

        if self.pos_enc is not None:
            q, k = self.pos_enc(q, k)
        if self.ratio > 1:
            k = k.repeat_interleave(self.ratio, dim=1)
            v = v.repeat_interleave(self.ratio, dim=1)

        # BUG FIX #A3: build mask in float32
        win_mask = self._window_mask(T, x.device)       # (T, T) float32
        win_mask = win_mask.unsqueeze(0).unsqueeze(0)   # (1,1,T,T)
        bias     = win_mask if attn_bias is None else attn_bias + win_mask

        out = F.scaled_dot_product_attention(
            q, k, v, attn_mask=bias,
            dropout_p=self.drop_p if self.training else 0.0,
        )
        out = out.transpose(1, 2).reshape(B, T, C)
        return self.out(out)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #7 : Linear Attention ────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class LinearAttention(nn.Module):
    """Linear attention approximation via kernel feature map (Katharopoulos et al., 2020)."""

    def __init__(self, config: OMGConfig):
        super().__init__()
        self.H  = config.num_heads
        self.D  = config.head_dim
        self.C  = config.hidden_size
        self.q_proj = nn.Linear(self.C, self.H * self.D, bias=False)
        self.k_proj = nn.Linear(self.C, self.H * self.D, bias=False)
        self.v_proj = nn.Linear(self.C, self.H * self.D, bias=False)
        self.out    = nn.Linear(self.C, self.C,           bias=False)

    @staticmethod
    def _feature_map(x: torch.Tensor) -> torch.Tensor:
        return F.elu(x) + 1.0

    def forward(self, x: torch.Tensor, attn_bias: Optional[torch.Tensor] = None) -> torch.Tensor:
        B, T, C = x.shape
        q = self._feature_map(self.q_proj(x).reshape(B, T, self.H, self.D))
        k = self._feature_map(self.k_proj(x).reshape(B, T, self.H, self.D))
        v = self.v_proj(x).reshape(B, T, self.H, self.D)

        kv  = torch.einsum("bthd,bthv->bhdv", k, v)
        qkv = torch.einsum("bthd,bhdv->bthv", q, kv)
        denom = torch.einsum("bthd,btd->bth", q, k.sum(dim=1)).unsqueeze(-1).clamp(min=1e-6)
        out = (qkv / denom).reshape(B, T, C)
        return self.out(out)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Feature #8 : Block-Sparse Attention ──────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class BlockSparseAttention(nn.Module):
    """
    Block-sparse attention.
    BUG FIX #A4 preserved: random block sampling on correct device.
    """

    def __init__(self, config: OMGConfig, block_size: int = 64, num_random_blocks: int = 3):
        super().__init__()
        self.H            = config.num_heads
        self.D            = config.head_dim
        self.C            = config.hidden_size
        self.block_size   = block_size
        self.num_random   = num_random_blocks
        self.drop_p       = config.attention_dropout

        self.q_proj = nn.Linear(self.C, self.H * self.D, bias=False)
        self.k_proj = nn.Linear(self.C, self.H * self.D, bias=False)
        self.v_proj = nn.Linear(self.C, self.H * self.D, bias=False)
        self.out    = nn.Linear(self.C, self.C,           bias=False)
        self.pos_enc = _build_rope(config)

    def _build_sparse_mask(self, T: int, device: torch.device) -> torch.Tensor:
        """BUG FIX #A4: randperm on correct device."""
        n_blocks = max(1, T // self.block_size)
        mask = torch.zeros(T, T, dtype=torch.float32, device=device)
        for b in range(n_blocks):
            s, e = b * self.block_size, min((b + 1) * self.block_size, T)
            mask[s:e, s:e] = 1.0
            n_rand = min(self.num_random, n_blocks - 1)
            if n_rand > 0:
                others = [i for i in range(n_blocks) if i != b]
                # BUG FIX #A4: device=device
                perm = torch.randperm(len(others), device=device)[:n_rand]
                for idx in perm:
                    rb = others[idx]
                    rs = rb * self.block_size
                    re = min((rb + 1) * self.block_size, T)
                    mask[s:e, rs:re] = 1.0
        return (1.0 - mask) * -1e9

    def forward(self, x: torch.Tensor, attn_bias: Optional[torch.Tensor] = None) -> torch.Tensor:
        B, T, C = x.shape
        q = self.q_proj(x).reshape(B, T, self.H, self.D).transpose(1, 2)
        k = self.k_proj(x).reshape(B, T, self.H, self.D).transpose(1, 2)
        v = self.v_proj(x).reshape(B, T, self.H, self.D).transpose(1, 2)

        if self.pos_enc is not None:
            q, k = self.pos_enc(q, k)

        sparse = self._build_sparse_mask(T, x.device).unsqueeze(0).unsqueeze(0)
        bias   = sparse if attn_bias is None else attn_bias + sparse

        out = F.scaled_dot_product_attention(
            q, k, v, attn_mask=bias,
            dropout_p=self.drop_p if self.training else 0.0,
        )
        out = out.transpose(1, 2).reshape(B, T, C)
        return self.out(out)


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Factory ───────────────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

def build_attention(config: OMGConfig) -> nn.Module:
    """
    Factory for attention modules.

    BUG FIX #A5 (preserved + fixed): block_sparse now dispatches correctly.

    Dispatch:
        gqa | mha | mqa  →  GroupedQueryAttention
        mla              →  MultiHeadLatentAttention
        sliding_window   →  SlidingWindowAttention
        linear           →  LinearAttention
        block_sparse     →  BlockSparseAttention  ← was missing in v2.0.5
    """
    t = config.attention_type
    if t in ("gqa", "mha", "mqa"):
        return GroupedQueryAttention(config)
    if t == "mla":
        return MultiHeadLatentAttention(config)
    if t == "sliding_window":
        return SlidingWindowAttention(config)
    if t == "linear":
        return LinearAttention(config)
    if t == "block_sparse":
        return BlockSparseAttention(config)   # BUG FIX #A5
    raise ValueError(f"Unknown attention_type '{t}'.")
