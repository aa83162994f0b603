"""
llama.cpp / GGUF export utilities for ZeroKV-compressed models.

Generates GGUF metadata files and conversion scripts for deploying
ZeroKV-compressed KV cache parameters alongside quantized model weights.

Usage:
    from zerokv.gguf_export import generate_gguf_zerokv_metadata

    metadata = generate_gguf_zerokv_metadata(
        model_id="Qwen/Qwen2.5-0.5B-Instruct",
        sliding_window=256,
        residual_bits=2,
    )
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional


def generate_gguf_zerokv_metadata(
    model_id: str,
    sliding_window: int = 256,
    r_bits: int = 3,
    theta_bits: int = 2,
    qjl_dim: int = 8,
    outlier_fraction: float = 0.10,
    residual_bits: int = 1,
    hadamard_rest: bool = True,
) -> Dict[str, Any]:
    """Generate ZeroKV metadata for GGUF model files.

    This metadata can be embedded in GGUF files as custom KV pairs
    to inform llama.cpp about ZeroKV compression parameters.

    Args:
        model_id: Hugging Face model identifier
        sliding_window: ZeroKV sliding window size
        r_bits: Radius quantization bits
        theta_bits: Angular quantization bits
        qjl_dim: QJL projection dimension
        outlier_fraction: Fraction of dimensions kept in FP16
        residual_bits: Residual quantization bits (1=sign, 2=INT4, 4=INT2)
        hadamard_rest: Whether FWHT is applied

    Returns:
        Metadata dictionary compatible with GGUF custom KV pairs
    """
    metadata = {
        "zerokv.version": "1.5.0",
        "zerokv.model": model_id,
        "zerokv.sliding_window": sliding_window,
        "zerokv.r_bits": r_bits,
        "zerokv.theta_bits": theta_bits,
        "zerokv.qjl_dim": qjl_dim,
        "zerokv.outlier_fraction": outlier_fraction,
        "zerokv.residual_bits": residual_bits,
        "zerokv.hadamard_rest": hadamard_rest,
        "zerokv.compression_method": "polar_qjl",
        "zerokv.precision_guard": True,
    }

    estimated_compression_ratio = _estimate_compression_ratio(
        r_bits, theta_bits, qjl_dim, outlier_fraction, residual_bits
    )
    metadata["zerokv.estimated_compression_ratio"] = estimated_compression_ratio

    return metadata


def _estimate_compression_ratio(
    r_bits: int,
    theta_bits: int,
    qjl_dim: int,
    outlier_fraction: float,
    residual_bits: int,
) -> float:
    """Estimate the compression ratio for given parameters."""
    fp16_bits_per_token = 2 * 16  # K + V, 16 bits each

    n_out_frac = outlier_fraction
    fp_bits = n_out_frac * 2 * 16

    compressed_dims = 1.0 - n_out_frac
    r_bits_cost = r_bits
    theta_bits_cost = theta_bits
    qjl_bits = qjl_dim * residual_bits

    compressed_bits = r_bits_cost + theta_bits_cost + qjl_bits
    total_bits = fp_bits + compressed_dims * compressed_bits

    if total_bits <= 0:
        return 1.0

    return fp16_bits_per_token / total_bits


def save_zerokv_profile_as_gguf_kv(
    profile_path: str,
    output_path: str,
) -> str:
    """Convert a ZeroKV JSON profile to a GGUF-compatible KV metadata file.

    Args:
        profile_path: Path to ZeroKV JSON profile
        output_path: Output path for the GGUF KV metadata JSON

    Returns:
        Path to the output file
    """
    with open(profile_path, "r") as f:
        profile = json.load(f)

    gguf_kv = {}
    for layer_idx, overrides in profile.get("layers", {}).items():
        prefix = f"zerokv.layer.{layer_idx}"
        if "r_bits" in overrides:
            gguf_kv[f"{prefix}.r_bits"] = overrides["r_bits"]
        if "theta_bits" in overrides:
            gguf_kv[f"{prefix}.theta_bits"] = overrides["theta_bits"]
        if "qjl_dim" in overrides:
            gguf_kv[f"{prefix}.qjl_dim"] = overrides["qjl_dim"]
        if "outlier_fraction" in overrides:
            gguf_kv[f"{prefix}.outlier_fraction"] = overrides["outlier_fraction"]
        if "sliding_window" in overrides:
            gguf_kv[f"{prefix}.sliding_window"] = overrides["sliding_window"]

    with open(output_path, "w") as f:
        json.dump(gguf_kv, f, indent=2)

    return output_path
