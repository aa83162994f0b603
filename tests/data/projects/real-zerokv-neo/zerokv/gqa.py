"""
Grouped-query attention (GQA) helpers: tune ZeroKV bit budget and FP tail for n_q >> n_kv.

When each KV head is shared by many query heads, lossy KV compression errors affect more
attention paths; we widen the precision guard and use a slightly richer polar/QJL budget.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from transformers import PretrainedConfig


def kv_query_head_ratio(config: PretrainedConfig) -> float:
    """Returns num_attention_heads / num_key_value_heads (1.0 if MHA or unknown)."""
    dc = config.get_text_config(decoder=True)
    nq = max(1, int(getattr(dc, "num_attention_heads", 1)))
    nkv = int(getattr(dc, "num_key_value_heads", nq))
    if nkv <= 0:
        nkv = nq
    if nkv >= nq:
        return 1.0
    return float(nq) / float(nkv)


def compute_gqa_adjustments(
    config: PretrainedConfig,
    *,
    sliding_window: int,
    r_bits: int,
    theta_bits: int,
    qjl_dim: int,
    outlier_fraction: Optional[float],
    auto_gqa_tune: bool = True,
) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """
    Returns ``(layer_kwargs_subset, gqa_report)``.

    ``layer_kwargs_subset`` keys: ``sliding_window``, ``r_bits``, ``theta_bits``,
    ``qjl_dim``, ``outlier_fraction``, ``outlier_boost``.
    """
    base_report: Dict[str, Any] = {
        "auto_gqa_tune": bool(auto_gqa_tune),
        "kv_query_ratio": kv_query_head_ratio(config),
        "applied": False,
    }
    if not auto_gqa_tune:
        return (
            {
                "sliding_window": sliding_window,
                "r_bits": r_bits,
                "theta_bits": theta_bits,
                "qjl_dim": qjl_dim,
                "outlier_fraction": outlier_fraction,
                "outlier_boost": 1.0,
            },
            base_report,
        )

    ratio = base_report["kv_query_ratio"]
    if ratio <= 1.0 + 1e-6:
        base_report["applied"] = False
        return (
            {
                "sliding_window": sliding_window,
                "r_bits": r_bits,
                "theta_bits": theta_bits,
                "qjl_dim": qjl_dim,
                "outlier_fraction": outlier_fraction,
                "outlier_boost": 1.0,
            },
            base_report,
        )

    # Widen FP tail (fewer lossy flushes); cap at HF-style 512.
    sw = min(512, int(sliding_window * min(2.0, 1.0 + 0.2 * (ratio - 1.0))))
    sw = max(int(sliding_window), sw)

    rb = min(5, r_bits + (2 if ratio >= 6.0 else 1 if ratio >= 3.0 else 0))
    tb = min(4, theta_bits + (2 if ratio >= 6.0 else 1 if ratio >= 3.0 else 0))
    qd = min(32, int(qjl_dim + 4 * min(4.0, ratio - 1.0)))
    boost = min(1.35, 1.0 + 0.06 * (ratio - 1.0))

    base_report.update(
        {
            "applied": True,
            "sliding_window_before": int(sliding_window),
            "sliding_window_after": int(sw),
            "r_bits_after": int(rb),
            "theta_bits_after": int(tb),
            "qjl_dim_after": int(qd),
            "outlier_boost": float(boost),
        }
    )
    return (
        {
            "sliding_window": sw,
            "r_bits": rb,
            "theta_bits": tb,
            "qjl_dim": qd,
            "outlier_fraction": outlier_fraction,
            "outlier_boost": boost,
        },
        base_report,
    )
