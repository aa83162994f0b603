"""Measured ZeroKV cache footprint vs FP16 KV upper bound (no fabricated multipliers)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from transformers.cache_utils import Cache

from zerokv.cache_layer import ZeroKVNeoQuantizedLayer
from zerokv.quant import compressed_kv_nbytes


def _fp_tensor_bytes(t) -> int:
    if t is None or not hasattr(t, "numel") or t.numel() == 0:
        return 0
    return int(t.numel() * t.element_size())


def _infer_bh_d_from_layer(layer: ZeroKVNeoQuantizedLayer, seq: int) -> tuple[int, int, int]:
    """After a flush, FP tails may be empty while `seq` > 0; infer (B,H,D) from tensors or payload."""
    if layer.keys.dim() == 4 and layer.keys.shape[-2] > 0:
        b, h, _, d = layer.keys.shape
        return b, h, d
    bk = getattr(layer, "_quantized_keys", None)
    if bk is not None and hasattr(bk, "payload"):
        sh = bk.payload.get("shape")
        if sh is not None and len(sh) >= 4:
            return int(sh[0]), int(sh[1]), int(sh[3])
    return max(1, int(getattr(layer, "max_batch_size", 1))), 1, 64


def estimate_zerokv_cache_footprint(cache: Optional[Cache]) -> Optional[Dict[str, Any]]:
    """
    Sum compressed payload bytes + FP residual tails per layer.
    `theoretical_fp16_kv_bytes` = 2 * K + 2 * V if both stored full FP16 for seq_len (upper bound).
    """
    if cache is None or len(cache.layers) == 0:
        return None

    total_quant = 0
    total_fp = 0
    theo_fp = 0
    per_layer: List[Dict[str, Any]] = []

    for i, layer in enumerate(cache.layers):
        if not isinstance(layer, ZeroKVNeoQuantizedLayer):
            return None

        q_b = 0
        if getattr(layer, "_quantized_keys", None) is not None:
            q_b += compressed_kv_nbytes(layer._quantized_keys)
        if getattr(layer, "_quantized_values", None) is not None:
            q_b += compressed_kv_nbytes(layer._quantized_values)

        fp_b = _fp_tensor_bytes(layer.keys) + _fp_tensor_bytes(layer.values)
        fp_b += _fp_tensor_bytes(getattr(layer, "_hh_keys", None))
        fp_b += _fp_tensor_bytes(getattr(layer, "_hh_values", None))
        seq = layer.get_seq_length() if layer.is_initialized else 0
        theo = 0
        if layer.is_initialized and seq > 0:
            b, h, d = _infer_bh_d_from_layer(layer, seq)
            theo = 2 * b * seq * h * d * 2

        total_quant += q_b
        total_fp += fp_b
        theo_fp += theo
        per_layer.append(
            {
                "layer": i,
                "quantized_bytes": q_b,
                "residual_fp_bytes": fp_b,
                "seq_len": seq,
                "theoretical_fp16_kv_bytes": theo,
            }
        )

    actual = total_quant + total_fp
    ratio_vs_fp16 = (theo_fp / actual) if actual > 0 and theo_fp > 0 else None

    return {
        "total_quantized_payload_bytes": total_quant,
        "total_residual_fp_bytes": total_fp,
        "total_stored_bytes": actual,
        "theoretical_fp16_kv_bytes_sum_layers": theo_fp,
        "ratio_fp16_over_stored": round(ratio_vs_fp16, 3) if ratio_vs_fp16 is not None else None,
        "per_layer": per_layer,
    }


def sliding_window_for_layer(layer_idx: int, n_layers: int, base: int) -> int:
    """
    Precision Guard: inner layers use `base` (e.g. 256); boundary layers up to min(512, 2*base).
    """
    base = max(32, min(512, int(base)))
    cap = 512
    edge = min(cap, base * 2)
    if n_layers <= 2:
        return edge
    if layer_idx == 0 or layer_idx == n_layers - 1:
        return edge
    return base
