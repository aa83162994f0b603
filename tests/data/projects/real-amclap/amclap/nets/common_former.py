from typing import Union, List

import torch
import torch.nn as nn
from torch.nn.attention import SDPBackend, sdpa_kernel

from .rope import RotaryEmbedding


class MHAPyTorchScaledDotProduct(nn.Module):
    def __init__(
        self,
        d_in,
        d_out,
        num_heads,
        dropout=0.0,
        qkv_bias=False,
        positional_embedding_type="learned",
    ):
        super().__init__()

        assert d_out % num_heads == 0, "embed_dim is indivisible by num_heads"

        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.d_out = d_out
        self.d_in = d_in
        self.positional_embedding_type = positional_embedding_type

        # Initialize positional encodings or rotary embeddings
        if self.positional_embedding_type == "rope":
            self.rotary_emb = RotaryEmbedding(dim=self.head_dim)

        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)
        self.proj = nn.Linear(d_in, d_out)
        self.dropout = dropout

        self.sdp_backends = [
            SDPBackend.FLASH_ATTENTION,
            SDPBackend.EFFICIENT_ATTENTION,
            SDPBackend.CUDNN_ATTENTION,
            SDPBackend.MATH,
        ]

    def forward(self, x, attn_mask=None):
        batch_size, num_tokens, embed_dim = x.shape

        # (b, num_tokens, embed_dim) --> (b, num_tokens, 3 * embed_dim)
        qkv = self.qkv(x)

        # (b, num_tokens, 3 * embed_dim) --> (b, num_tokens, 3, num_heads, head_dim)
        qkv = qkv.view(batch_size, num_tokens, 3, self.num_heads, self.head_dim)

        # (b, num_tokens, 3, num_heads, head_dim) --> (3, b, num_heads, num_tokens, head_dim)
        qkv = qkv.permute(2, 0, 3, 1, 4)

        # (3, b, num_heads, num_tokens, head_dim) -> 3 times (b, num_heads, num_tokens, head_dim)
        queries, keys, values = qkv

        # broadcast to the
        if attn_mask is not None:
            attn_mask = attn_mask.bool().unsqueeze(1).unsqueeze(2)

        # Apply rotary embeddings to queries and keys in each attention layer
        if self.positional_embedding_type == "rope":
            queries = self.rotary_emb.rotate_queries_or_keys(queries)
            keys = self.rotary_emb.rotate_queries_or_keys(keys)

        use_dropout = 0.0 if not self.training else self.dropout

        with sdpa_kernel(self.sdp_backends, set_priority=True):
            context_vec = nn.functional.scaled_dot_product_attention(
                queries,
                keys,
                values,
                attn_mask=attn_mask,
                dropout_p=use_dropout,
                is_causal=False,
            )

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = (
            context_vec.transpose(1, 2)
            .contiguous()
            .view(batch_size, num_tokens, self.d_out)
        )

        context_vec = self.proj(context_vec)

        return context_vec


class DeepNorm(nn.Module):
    # Code borrowed from https://nn.labml.ai/normalization/deep_norm/index.html
    def __init__(
        self,
        alpha: float,
        normalized_shape: Union[int, List[int], torch.Size],
        *,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
    ):
        super().__init__()
        self.alpha = alpha
        self.layer_norm = nn.LayerNorm(
            normalized_shape, eps=eps, elementwise_affine=elementwise_affine
        )

    def forward(self, x: torch.Tensor, gx: torch.Tensor):
        return self.layer_norm(self.alpha * x + gx)
