"""
ZeroKV-Neo Method — named methodology for benchmarks, docs, and marketing copy.

This module is the single source of truth for methodology metadata embedded in JSON reports.
"""

from __future__ import annotations

from typing import Any, Dict, List

METHOD_NAME = "ZeroKV-Neo Method"
METHOD_VERSION = "1.0"
METHOD_SUMMARY = (
    "Training-free KV cache compression: precision-guarded FP16 tail plus adaptive polar–QJL "
    "on the prefix (optional Hadamard on the residual subspace), Hugging Face Cache–native."
)

# Short bullets for JSON / press one-pagers (keep in sync with README intent).
PRINCIPLES: List[str] = [
    "No weight fine-tuning — compression applies at inference on KV tensors only.",
    "Precision guard: the newest tokens stay in FP16 (KIVI-style sliding tail); older context is compressed.",
    "Prefix body: adaptive polar + QJL representation with per-layer outlier fraction cycling.",
    "Optional Hadamard/FWHT on padded residual working dimension when head width allows.",
    "Quality contract: same harness reports PPL vs FP KV, KV bytes vs theoretical FP16, and greedy decode tok/s.",
    "GQA/prefill: first cache update after lazy init keeps the full prefill K/V in FP16 (empty-prefix sentinel in compressed slot) so chat-template long chunks are not lossy-quantized before the first decode step.",
]

# Bumped when the JSON schema or measurement definitions change meaningfully.
BENCHMARK_PROTOCOL_ID = "zerokv_neo_full_v1"


def build_methodology_block(*, benchmark_key: str = "zerokv_neo_full") -> Dict[str, Any]:
    return {
        "id": METHOD_NAME,
        "version": METHOD_VERSION,
        "summary": METHOD_SUMMARY,
        "principles": list(PRINCIPLES),
        "benchmark_protocol_id": BENCHMARK_PROTOCOL_ID,
        "benchmark_key": benchmark_key,
    }
