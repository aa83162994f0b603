"""
Multi-modal KV cache compression for vision-language models.

Handles the unique characteristics of image token KV caches:
- Image tokens are typically much longer than text tokens (256-4096 tokens per image)
- Image tokens have different attention patterns (often attend to themselves)
- Image KV can be compressed more aggressively since they're static

Supports LLaVA, Qwen2-VL, and other vision-language architectures.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import torch

from zerokv.quant import CompressedBlock, compress_kv_tensor, decompress_kv_tensor


class MultiModalKVCache:
    """KV cache with specialized handling for image tokens.

    Image tokens are compressed with a dedicated strategy that accounts for:
    - Higher redundancy (neighboring patches are similar)
    - Static content (no autoregressive generation on image tokens)
    - Higher outlier fraction needed (image features have heavy-tailed distributions)
    """

    def __init__(
        self,
        num_layers: int,
        head_dim: int,
        num_heads: int,
        text_sliding_window: int = 256,
        image_compression_ratio: float = 8.0,
        image_r_bits: int = 2,
        image_theta_bits: int = 1,
        image_qjl_dim: int = 4,
        image_outlier_fraction: float = 0.20,
        image_residual_bits: int = 2,
    ):
        self.num_layers = num_layers
        self.head_dim = head_dim
        self.num_heads = num_heads
        self.text_sliding_window = text_sliding_window

        self.image_params = {
            "r_bits": image_r_bits,
            "theta_bits": image_theta_bits,
            "qjl_dim": image_qjl_dim,
            "outlier_fraction": image_outlier_fraction,
            "residual_bits": image_residual_bits,
        }

        self._text_keys: List[Optional[torch.Tensor]] = [None] * num_layers
        self._text_values: List[Optional[torch.Tensor]] = [None] * num_layers
        self._image_keys: List[List[CompressedBlock]] = [[] for _ in range(num_layers)]
        self._image_values: List[List[CompressedBlock]] = [[] for _ in range(num_layers)]
        self._image_token_counts: List[int] = [0] * num_layers
        self._text_token_count = 0

    def update_text(
        self,
        layer_idx: int,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if self._text_keys[layer_idx] is None:
            self._text_keys[layer_idx] = key_states
            self._text_values[layer_idx] = value_states
            self._text_token_count += key_states.shape[-2]
            return key_states, value_states

        self._text_keys[layer_idx] = torch.cat(
            [self._text_keys[layer_idx], key_states], dim=-2
        )
        self._text_values[layer_idx] = torch.cat(
            [self._text_values[layer_idx], value_states], dim=-2
        )
        self._text_token_count += key_states.shape[-2]

        seq_len = self._text_keys[layer_idx].shape[-2]
        if seq_len > self.text_sliding_window:
            excess = seq_len - self.text_sliding_window
            to_compress = self._text_keys[layer_idx][:, :, :excess, :]
            to_compress_v = self._text_values[layer_idx][:, :, :excess, :]

            from zerokv.cache_layer import ZeroKVNeoQuantizedLayer
            layer = ZeroKVNeoQuantizedLayer(
                sliding_window=self.text_sliding_window,
                layer_idx=layer_idx,
            )
            k_block = layer._quantize(to_compress.contiguous(), axis=0)
            v_block = layer._quantize(to_compress_v.contiguous(), axis=1)

            self._text_keys[layer_idx] = self._text_keys[layer_idx][:, :, excess:, :]
            self._text_values[layer_idx] = self._text_values[layer_idx][:, :, excess:, :]

        return self.get_full_kv(layer_idx)

    def update_image(
        self,
        layer_idx: int,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
    ) -> None:
        k_block = compress_kv_tensor(key_states.contiguous(), **self.image_params)
        v_block = compress_kv_tensor(value_states.contiguous(), **self.image_params)

        self._image_keys[layer_idx].append(k_block)
        self._image_values[layer_idx].append(v_block)
        self._image_token_counts[layer_idx] += key_states.shape[-2]

    def get_full_kv(self, layer_idx: int) -> Tuple[torch.Tensor, torch.Tensor]:
        parts_k: List[torch.Tensor] = []
        parts_v: List[torch.Tensor] = []

        for block in self._image_keys[layer_idx]:
            parts_k.append(decompress_kv_tensor(block))
        for block in self._image_values[layer_idx]:
            parts_v.append(decompress_kv_tensor(block))

        if self._text_keys[layer_idx] is not None:
            parts_k.append(self._text_keys[layer_idx])
            parts_v.append(self._text_values[layer_idx])

        if parts_k:
            return torch.cat(parts_k, dim=-2), torch.cat(parts_v, dim=-2)

        shape = (1, self.num_heads, 0, self.head_dim)
        return (
            torch.zeros(shape, dtype=torch.float16),
            torch.zeros(shape, dtype=torch.float16),
        )

    def get_memory_stats(self) -> Dict[str, Any]:
        from zerokv.quant import compressed_kv_nbytes

        image_bytes = 0
        for layer_k, layer_v in zip(self._image_keys, self._image_values):
            for b in layer_k:
                image_bytes += compressed_kv_nbytes(b)
            for b in layer_v:
                image_bytes += compressed_kv_nbytes(b)

        text_bytes = 0
        for k, v in zip(self._text_keys, self._text_values):
            if k is not None:
                text_bytes += k.numel() * k.element_size()
            if v is not None:
                text_bytes += v.numel() * v.element_size()

        total_image_tokens = sum(self._image_token_counts)
        fp16_image = 2 * total_image_tokens * self.num_heads * self.head_dim * 2

        return {
            "image_tokens": total_image_tokens,
            "text_tokens": self._text_token_count,
            "image_compressed_bytes": image_bytes,
            "text_fp_bytes": text_bytes,
            "image_fp16_baseline": fp16_image,
            "image_compression_ratio": round(fp16_image / image_bytes, 2) if image_bytes > 0 else 1.0,
        }

    def reset(self) -> None:
        self._text_keys = [None] * self.num_layers
        self._text_values = [None] * self.num_layers
        self._image_keys = [[] for _ in range(self.num_layers)]
        self._image_values = [[] for _ in range(self.num_layers)]
        self._image_token_counts = [0] * self.num_layers
        self._text_token_count = 0
