"""Attention and quantized linear layers from CUDA-only libraries."""

import bitsandbytes as bnb
import torch
from flash_attn import flash_attn_func
from torch import nn

try:
    import xformers.ops as xops
except ImportError:
    xops = None


class Attention(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.qkv = bnb.nn.Linear8bitLt(width, 3 * width, has_fp16_weights=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return flash_attn_func(q, k, v, causal=True)
