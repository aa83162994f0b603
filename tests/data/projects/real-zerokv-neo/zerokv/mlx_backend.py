"""
MLX backend for Apple Silicon native inference with ZeroKV compression.

MLX is Apple's ML framework for silicon-optimized tensor operations.
This module provides ZeroKV compression/decompression using MLX arrays
and a drop-in cache implementation for MLX-based LLM inference.

Usage:
    from zerokv.mlx_backend import MLXZeroKVCache

    cache = MLXZeroKVCache(
        num_layers=28,
        head_dim=128,
        num_heads=16,
        sliding_window=256,
    )
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import torch


class MLXZeroKVCache:
    """MLX-compatible ZeroKV cache that stores compressed KV blocks.

    This cache uses the same Polar + QJL compression as the PyTorch version
    but is designed to be compatible with MLX array shapes and dtypes.
    On Apple Silicon, the cache can be exported to MLX format for native use.
    """

    def __init__(
        self,
        num_layers: int,
        head_dim: int,
        num_heads: int,
        sliding_window: int = 256,
        r_bits: int = 3,
        theta_bits: int = 2,
        qjl_dim: int = 8,
        outlier_fraction: float = 0.10,
        residual_bits: int = 1,
    ):
        self.num_layers = num_layers
        self.head_dim = head_dim
        self.num_heads = num_heads
        self.sliding_window = sliding_window
        self.r_bits = r_bits
        self.theta_bits = theta_bits
        self.qjl_dim = qjl_dim
        self.outlier_fraction = outlier_fraction
        self.residual_bits = residual_bits
        self._keys: List[Optional[torch.Tensor]] = [None] * num_layers
        self._values: List[Optional[torch.Tensor]] = [None] * num_layers
        self._compressed_keys: List[Optional[Any]] = [None] * num_layers
        self._compressed_values: List[Optional[Any]] = [None] * num_layers
        self._offset = 0

    def update(
        self,
        layer_idx: int,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if self._keys[layer_idx] is None:
            self._keys[layer_idx] = key_states
            self._values[layer_idx] = value_states
            return key_states, value_states

        self._keys[layer_idx] = torch.cat(
            [self._keys[layer_idx], key_states], dim=-2
        )
        self._values[layer_idx] = torch.cat(
            [self._values[layer_idx], value_states], dim=-2
        )

        seq_len = self._keys[layer_idx].shape[-2]
        if seq_len > self.sliding_window:
            self._flush_layer(layer_idx)

        return self._keys[layer_idx], self._values[layer_idx]

    def _flush_layer(self, layer_idx: int) -> None:
        from zerokv.quant import compress_kv_tensor

        keys = self._keys[layer_idx]
        values = self._values[layer_idx]

        if keys is None or keys.shape[-2] == 0:
            return

        excess = keys.shape[-2] - self.sliding_window
        if excess <= 0:
            return

        keys_to_compress = keys[:, :, :excess, :]
        values_to_compress = values[:, :, :excess, :]

        k_block = compress_kv_tensor(
            keys_to_compress.contiguous(),
            r_bits=self.r_bits,
            theta_bits=self.theta_bits,
            qjl_dim=self.qjl_dim,
            outlier_fraction=self.outlier_fraction,
            residual_bits=self.residual_bits,
        )
        v_block = compress_kv_tensor(
            values_to_compress.contiguous(),
            r_bits=self.r_bits,
            theta_bits=self.theta_bits,
            qjl_dim=self.qjl_dim,
            outlier_fraction=self.outlier_fraction,
            residual_bits=self.residual_bits,
        )

        if self._compressed_keys[layer_idx] is None:
            self._compressed_keys[layer_idx] = k_block
            self._compressed_values[layer_idx] = v_block
        else:
            self._compressed_keys[layer_idx] = self._merge_blocks(
                self._compressed_keys[layer_idx], k_block
            )
            self._compressed_values[layer_idx] = self._merge_blocks(
                self._compressed_values[layer_idx], v_block
            )

        self._keys[layer_idx] = keys[:, :, excess:, :]
        self._values[layer_idx] = values[:, :, excess:, :]
        assert self._keys[layer_idx].shape[-2] == self.sliding_window

    def _merge_blocks(self, existing: Any, new_block: Any) -> Any:
        return new_block

    def get_full_keys(self, layer_idx: int) -> torch.Tensor:
        from zerokv.quant import decompress_kv_tensor

        parts = []
        if self._compressed_keys[layer_idx] is not None:
            decompressed = decompress_kv_tensor(self._compressed_keys[layer_idx])
            parts.append(decompressed)
        if self._keys[layer_idx] is not None and self._keys[layer_idx].shape[-2] > 0:
            parts.append(self._keys[layer_idx])
        if parts:
            return torch.cat(parts, dim=-2)
        return torch.zeros(1, self.num_heads, 0, self.head_dim, dtype=torch.float16)

    def get_full_values(self, layer_idx: int) -> torch.Tensor:
        from zerokv.quant import decompress_kv_tensor

        parts = []
        if self._compressed_values[layer_idx] is not None:
            decompressed = decompress_kv_tensor(self._compressed_values[layer_idx])
            parts.append(decompressed)
        if self._values[layer_idx] is not None and self._values[layer_idx].shape[-2] > 0:
            parts.append(self._values[layer_idx])
        if parts:
            return torch.cat(parts, dim=-2)
        return torch.zeros(1, self.num_heads, 0, self.head_dim, dtype=torch.float16)

    def to_mlx_arrays(self) -> Dict[str, Any]:
        """Export cache state to MLX-compatible format."""
        try:
            import mlx.core as mx
        except ImportError:
            raise ImportError(
                "MLX is required for export. Install with: pip install mlx"
            )

        result = {}
        for i in range(self.num_layers):
            k = self.get_full_keys(i)
            v = self.get_full_values(i)
            result[f"layer_{i}_key"] = mx.array(k.numpy())
            result[f"layer_{i}_value"] = mx.array(v.numpy())

        if self._compressed_keys[0] is not None:
            from zerokv.quant import compressed_kv_nbytes
            total = 0
            for i in range(self.num_layers):
                if self._compressed_keys[i] is not None:
                    total += compressed_kv_nbytes(self._compressed_keys[i])
                    total += compressed_kv_nbytes(self._compressed_values[i])
            result["_zerokv_compressed_bytes"] = total

        return result

    def reset(self) -> None:
        self._keys = [None] * self.num_layers
        self._values = [None] * self.num_layers
        self._compressed_keys = [None] * self.num_layers
        self._compressed_values = [None] * self.num_layers
        self._offset = 0

    def __len__(self) -> int:
        if self._keys[0] is not None:
            return self._keys[0].shape[-2]
        return 0
