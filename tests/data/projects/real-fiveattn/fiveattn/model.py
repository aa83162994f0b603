"""Transformer model implementation featuring standard MHA and 5-Component Attention (GAU).

Fully compatible with torch.compile (zero compilation graph breaks) and torch autotune.
"""

from typing import Optional, Tuple
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

from fiveattn.config import ModelConfig


class RMSNorm(nn.Module):
    """Root Mean Square Layer Normalization."""

    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Fused/vectorized RMSNorm without graph breaks
        variance = x.pow(2).mean(dim=-1, keepdim=True)
        return x * torch.rsqrt(variance + self.eps) * self.weight


class SwiGLU(nn.Module):
    """Swish-Gated Linear Unit (SwiGLU) Feed-Forward Network."""

    def __init__(self, dim: int, hidden_dim: int, dropout: float = 0.0):
        super().__init__()
        self.w_gate = nn.Linear(dim, hidden_dim, bias=False)
        self.w_up = nn.Linear(dim, hidden_dim, bias=False)
        self.w_down = nn.Linear(hidden_dim, dim, bias=False)
        self.dropout = nn.Dropout(dropout) if dropout > 0.0 else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = F.silu(self.w_gate(x))
        up = self.w_up(x)
        return self.dropout(self.w_down(gate * up))


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """Rotates half the hidden dimensions of the input tensor."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(
    q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Applies Rotary Positional Embedding to query and key tensors."""
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


class RotaryEmbedding(nn.Module):
    """Rotary Position Embedding (RoPE) buffer cache."""

    def __init__(self, dim: int, max_seq_len: int = 2048, theta: float = 10000.0):
        super().__init__()
        self.dim = dim
        self.max_seq_len = max_seq_len
        self.theta = theta

        inv_freq = 1.0 / (theta ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._set_cos_sin_cache(max_seq_len)

    def _set_cos_sin_cache(self, seq_len: int):
        t = torch.arange(seq_len, dtype=torch.float32, device=self.inv_freq.device)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, seq_len: int
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if seq_len > self.cos_cached.shape[0]:
            self._set_cos_sin_cache(seq_len)

        cos = self.cos_cached[:seq_len, :].unsqueeze(0).unsqueeze(0)
        sin = self.sin_cached[:seq_len, :].unsqueeze(0).unsqueeze(0)
        return apply_rotary_pos_emb(q, k, cos, sin)


class MultiHeadAttention(nn.Module):
    """Standard 4-projection Multi-Head Attention (Q, K, V, O)."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.d_model = config.d_model
        self.n_heads = config.n_heads
        self.head_dim = config.head_dim
        self.dropout_p = config.dropout

        # 4 projections
        self.q_proj = nn.Linear(self.d_model, self.d_model, bias=False)
        self.k_proj = nn.Linear(self.d_model, self.d_model, bias=False)
        self.v_proj = nn.Linear(self.d_model, self.d_model, bias=False)
        self.o_proj = nn.Linear(self.d_model, self.d_model, bias=False)

    def forward(
        self,
        x: torch.Tensor,
        rope: RotaryEmbedding,
    ) -> torch.Tensor:
        b, t, d = x.shape

        q = self.q_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)

        q, k = rope(q, k, t)

        attn_out = F.scaled_dot_product_attention(
            q,
            k,
            v,
            is_causal=True,
            dropout_p=self.dropout_p if self.training else 0.0,
        )

        attn_out = attn_out.transpose(1, 2).contiguous().view(b, t, d)
        return self.o_proj(attn_out)


class FiveComponentAttention(nn.Module):
    """5-Component Attention (Gated Attention Unit - GAU).

    Projections:
    1. W_q: Query projection
    2. W_k: Key projection
    3. W_v: Value projection
    4. W_g: Gate projection (5th component!)
    5. W_o: Output projection

    Formula:
        Q = X W_q
        K = X W_k
        V = X W_v
        G = X W_g
        AttnOut = Softmax(Q K^T / sqrt(d) + causal_mask) V
        Gated = AttnOut * Activation(G)
        Output = Gated W_o
    """

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.d_model = config.d_model
        self.n_heads = config.n_heads
        self.head_dim = config.head_dim
        self.dropout_p = config.dropout
        self.gate_act_type = config.gate_act

        # 5 distinct projection matrices
        self.q_proj = nn.Linear(self.d_model, self.d_model, bias=False)
        self.k_proj = nn.Linear(self.d_model, self.d_model, bias=False)
        self.v_proj = nn.Linear(self.d_model, self.d_model, bias=False)
        self.g_proj = nn.Linear(self.d_model, self.d_model, bias=False)
        self.o_proj = nn.Linear(self.d_model, self.d_model, bias=False)

    def _apply_gate(self, g: torch.Tensor) -> torch.Tensor:
        if self.gate_act_type == "silu":
            return F.silu(g)
        elif self.gate_act_type == "sigmoid":
            return torch.sigmoid(g)
        elif self.gate_act_type == "gelu":
            return F.gelu(g)
        return g

    def forward(
        self,
        x: torch.Tensor,
        rope: RotaryEmbedding,
    ) -> torch.Tensor:
        b, t, d = x.shape

        # Compute Q, K, V
        q = self.q_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)

        # 5th component: Gate projection
        g = self.g_proj(x)

        # Apply Rotary Position Embeddings to Q and K
        q, k = rope(q, k, t)

        # Causal Scaled Dot-Product Attention
        attn_out = F.scaled_dot_product_attention(
            q,
            k,
            v,
            is_causal=True,
            dropout_p=self.dropout_p if self.training else 0.0,
        )

        attn_out = attn_out.transpose(1, 2).contiguous().view(b, t, d)

        # Modulate attention context with gated projection
        gated = attn_out * self._apply_gate(g)

        # Output projection
        return self.o_proj(gated)


class TransformerBlock(nn.Module):
    """Transformer decoder block with Pre-RMSNorm and SwiGLU MLP."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.attn_norm = RMSNorm(config.d_model, eps=config.rms_norm_eps)
        if config.attention_type == "fiveattn":
            self.attn = FiveComponentAttention(config)
        else:
            self.attn = MultiHeadAttention(config)

        self.mlp_norm = RMSNorm(config.d_model, eps=config.rms_norm_eps)
        self.mlp = SwiGLU(config.d_model, config.mlp_hidden_dim, dropout=config.dropout)

    def forward(
        self,
        x: torch.Tensor,
        rope: RotaryEmbedding,
    ) -> torch.Tensor:
        # Pre-norm Attention with residual
        x = x + self.attn(self.attn_norm(x), rope)
        # Pre-norm SwiGLU MLP with residual
        x = x + self.mlp(self.mlp_norm(x))
        return x


class TransformerLM(nn.Module):
    """Full Transformer Language Model."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config

        self.token_embeddings = nn.Embedding(config.vocab_size, config.d_model)
        self.rope = RotaryEmbedding(
            config.head_dim, max_seq_len=config.max_seq_len, theta=config.rope_theta
        )

        self.layers = nn.ModuleList([TransformerBlock(config) for _ in range(config.n_layers)])
        self.final_norm = RMSNorm(config.d_model, eps=config.rms_norm_eps)

        if config.tie_word_embeddings:
            self.lm_head = None
        else:
            self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)

        # Weight initialization
        self.apply(self._init_weights)

    def _init_weights(self, module: nn.Module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def get_output_embeddings(self) -> torch.Tensor:
        """Returns the weight matrix used to produce logits."""
        if self.config.tie_word_embeddings:
            return self.token_embeddings.weight
        return self.lm_head.weight

    def forward_hidden_states(self, input_ids: torch.Tensor) -> torch.Tensor:
        """Computes and returns the normalized final hidden states (B, T, D).

        This is compiled with zero graph breaks and directly passed to cut-cross-entropy.
        """
        x = self.token_embeddings(input_ids)
        for layer in self.layers:
            x = layer(x, self.rope)
        x = self.final_norm(x)
        return x

    def forward(
        self,
        input_ids: torch.Tensor,
        return_logits: bool = True,
    ) -> torch.Tensor:
        """Standard forward pass.

        Args:
            input_ids: (B, T) token IDs tensor.
            return_logits: If True, computes (B, T, V) logits. If False, returns (B, T, D) hidden states.

        Returns:
            Logits tensor (B, T, V) if return_logits=True, else hidden states (B, T, D).
        """
        hidden_states = self.forward_hidden_states(input_ids)
        if not return_logits:
            return hidden_states

        c = self.get_output_embeddings()
        logits = F.linear(hidden_states, c)
        return logits

    @torch.no_grad()
    def generate(
        self,
        input_ids: torch.Tensor,
        max_new_tokens: int = 50,
        temperature: float = 0.8,
        top_k: int = 50,
        eos_token_id: Optional[int] = None,
    ) -> torch.Tensor:
        """Autoregressive text generation."""
        self.eval()
        for _ in range(max_new_tokens):
            idx_cond = (
                input_ids
                if input_ids.size(1) <= self.config.max_seq_len
                else input_ids[:, -self.config.max_seq_len :]
            )
            logits = self.forward(idx_cond, return_logits=True)
            logits = logits[:, -1, :]

            if temperature > 0:
                logits = logits / temperature
                if top_k is not None and top_k > 0:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float("Inf")
                probs = F.softmax(logits, dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1)
            else:
                idx_next = torch.argmax(logits, dim=-1, keepdim=True)

            input_ids = torch.cat((input_ids, idx_next), dim=1)
            if eos_token_id is not None and (idx_next == eos_token_id).all():
                break

        return input_ids
