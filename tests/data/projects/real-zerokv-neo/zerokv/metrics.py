"""Measured memory stats — no fabricated compression strings."""

from __future__ import annotations

import gc
import time
from typing import Any, Dict

import psutil
import torch


def cleanup_after_inference() -> None:
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    if torch.backends.mps.is_available():
        torch.mps.empty_cache()


def get_memory_stats() -> Dict[str, Any]:
    process = psutil.Process()
    ram_mb = process.memory_info().rss / (1024**2)
    stats: Dict[str, Any] = {
        "ram_mb": round(ram_mb, 1),
        "timestamp": time.strftime("%H:%M:%S"),
    }
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        stats["vram_allocated_mb"] = round(torch.cuda.memory_allocated() / (1024**2), 2)
        stats["vram_reserved_mb"] = round(torch.cuda.memory_reserved() / (1024**2), 2)
        stats["vram_total_mb"] = round(torch.cuda.get_device_properties(0).total_memory / (1024**2), 2)
    if torch.backends.mps.is_available():
        stats["mps_available"] = True
    return stats


def kv_cache_bytes_from_model(model: torch.nn.Module, seq_len: int, batch: int = 1) -> Dict[str, float]:
    """Theoretical FP16 KV size for decoder layers (rough lower bound for reporting)."""
    cfg = model.config.get_text_config(decoder=True)
    n = cfg.num_hidden_layers
    h = getattr(cfg, "num_key_value_heads", cfg.num_attention_heads)
    d = cfg.hidden_size // cfg.num_attention_heads
    bytes_per = 2 * batch * seq_len * h * d * 2  # K+V, fp16
    return {
        "layers": n,
        "bytes_per_layer_token": 2 * batch * h * d * 2,
        "total_kv_bytes_fp16_est": n * bytes_per,
    }
