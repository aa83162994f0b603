"""
stream_transformer/models/llama.py – Modern LLaMA-3 / Mistral Transformer Block Architecture
Features:
- Rotary Position Embeddings (RoPE)
- Root Mean Square Normalization (RMSNorm)
- Grouped-Query Attention (GQA) & KV-Cache Support
- SwiGLU Feed-Forward Networks
Author: Ranveer Kumar (Independent AI Researcher)
"""

import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from typing import Optional, Tuple
from stream_transformer.kv_cache import StreamKVCache

class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        variance = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(variance + self.eps) * self.weight

def apply_rotary_pos_emb(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Applies Rotary Position Embedding (RoPE) to Query or Key tensors."""
    # x shape: [batch, heads, seq_len, head_dim]
    d = x.shape[-1] // 2
    x1, x2 = x[..., :d], x[..., d:]
    rotated = torch.cat((-x2, x1), dim=-1)
    return (x * cos) + (rotated * sin)

class LlamaAttention(nn.Module):
    """Grouped-Query Attention (GQA) with RoPE and Streaming KV Cache."""
    def __init__(
        self,
        dim: int = 4096,
        n_heads: int = 32,
        n_kv_heads: int = 8,
        head_dim: int = 128
    ):
        super().__init__()
        self.dim = dim
        self.n_heads = n_heads
        self.n_kv_heads = n_kv_heads
        self.head_dim = head_dim
        self.num_kv_groups = n_heads // n_kv_heads

        self.q_proj = nn.Linear(dim, n_heads * head_dim, bias=False)
        self.k_proj = nn.Linear(dim, n_kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(dim, n_kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(n_heads * head_dim, dim, bias=False)

    def forward(
        self,
        x: torch.Tensor,
        layer_idx: int = 0,
        kv_cache: Optional[StreamKVCache] = None,
        cos: Optional[torch.Tensor] = None,
        sin: Optional[torch.Tensor] = None
    ) -> torch.Tensor:
        B, T, C = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, self.head_dim).transpose(1, 2)

        # Apply RoPE if provided
        if cos is not None and sin is not None:
            q = apply_rotary_pos_emb(q, cos, sin)
            k = apply_rotary_pos_emb(k, cos, sin)

        # Streaming Layer-Wise KV Cache
        if kv_cache is not None:
            k, v = kv_cache.update_and_fetch(layer_idx, k, v, x.device)

        # Repeat KV heads for Grouped-Query Attention (GQA)
        if self.num_kv_groups > 1:
            k = k.repeat_interleave(self.num_kv_groups, dim=1)
            v = v.repeat_interleave(self.num_kv_groups, dim=1)

        # FlashAttention / Scaled Dot-Product Attention
        is_causal = (T > 1) and (kv_cache is None or kv_cache.seen_tokens == 0)
        attn_out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)

        # Output projection
        attn_out = attn_out.transpose(1, 2).contiguous().view(B, T, -1)
        return self.o_proj(attn_out)

class LlamaMLP(nn.Module):
    """SwiGLU Feed-Forward Network: (SiLU(gate) * up) @ down"""
    def __init__(self, dim: int = 4096, hidden_dim: int = 14336):
        super().__init__()
        self.gate_proj = nn.Linear(dim, hidden_dim, bias=False)
        self.up_proj = nn.Linear(dim, hidden_dim, bias=False)
        self.down_proj = nn.Linear(hidden_dim, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))

class LlamaDecoderBlock(nn.Module):
    """Complete LLaMA-3 / Mistral Transformer Layer Block."""
    def __init__(
        self,
        dim: int = 4096,
        n_heads: int = 32,
        n_kv_heads: int = 8,
        head_dim: int = 128,
        hidden_dim: int = 14336,
        eps: float = 1e-6
    ):
        super().__init__()
        self.input_layernorm = RMSNorm(dim, eps=eps)
        self.self_attn = LlamaAttention(dim, n_heads, n_kv_heads, head_dim)
        self.post_attention_layernorm = RMSNorm(dim, eps=eps)
        self.mlp = LlamaMLP(dim, hidden_dim)

    def forward(
        self,
        x: torch.Tensor,
        layer_idx: int = 0,
        kv_cache: Optional[StreamKVCache] = None,
        cos: Optional[torch.Tensor] = None,
        sin: Optional[torch.Tensor] = None
    ) -> torch.Tensor:
        h = x + self.self_attn(self.input_layernorm(x), layer_idx, kv_cache, cos, sin)
        out = h + self.mlp(self.post_attention_layernorm(h))
        return out
