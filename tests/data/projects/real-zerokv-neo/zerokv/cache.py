"""Build a `transformers.Cache` filled with ZeroKV layers."""

from __future__ import annotations

from typing import Any, Dict, Optional

from transformers import PretrainedConfig
from transformers.cache_utils import Cache

from zerokv.cache_layer import ZeroKVNeoQuantizedLayer
from zerokv.gqa import compute_gqa_adjustments
from zerokv.hadamard import MAX_FWHT_REST_DIM
from zerokv.kv_report import sliding_window_for_layer
from zerokv.profiles import LayerOverride, ZerokvProfile


class ZeroKVNeoCache(Cache):
    """Thin wrapper for typing / discovery."""

    pass


def build_zerokv_cache(
    config: PretrainedConfig,
    *,
    sliding_window: int = 256,
    r_bits: int = 3,
    theta_bits: int = 2,
    qjl_dim: int = 8,
    outlier_fraction: Optional[float] = None,
    adaptive_sliding_window: bool = True,
    hadamard_rest: bool = True,
    max_fwht_rest_dim: int = MAX_FWHT_REST_DIM,
    heavy_hitter_budget: int = 0,
    auto_gqa_tune: bool = True,
    profile: Optional[ZerokvProfile] = None,
    online_adapt: bool = False,
    online_adapt_lr: float = 0.05,
    online_adapt_momentum: float = 0.9,
    online_adapt_reset_interval: int = 0,
    residual_bits: int = 1,
    precision_mode: bool = False,
) -> Cache:
    """Build a ZeroKV cache with optional precision mode.

    When ``precision_mode=True``, the cache uses a very large sliding window
    (effectively disabling lossy compression) and higher bit budgets to
    preserve exact numeric fidelity. This is useful for tasks requiring
    exact recall of numbers or facts embedded in long context.

    Args:
        precision_mode: If True, maximize precision over compression ratio.
            Sets sliding_window=65536, r_bits=5, theta_bits=4, qjl_dim=24,
            and disables adaptive sliding window.
    """
    if precision_mode:
        sliding_window = 65536
        r_bits = 5
        theta_bits = 4
        qjl_dim = 24
        adaptive_sliding_window = False
        hadamard_rest = True
    user_sliding_window = int(sliding_window)
    adj, _gqa_report = compute_gqa_adjustments(
        config,
        sliding_window=user_sliding_window,
        r_bits=r_bits,
        theta_bits=theta_bits,
        qjl_dim=qjl_dim,
        outlier_fraction=outlier_fraction,
        auto_gqa_tune=auto_gqa_tune,
    )
    gqa_sliding_window = int(adj["sliding_window"])
    # Profile present: keep user's sliding window as baseline for adaptive layers;
    # GQA still adjusts r_bits/theta_bits/qjl_dim/outlier_boost.
    sw_global_base = user_sliding_window if profile is not None else gqa_sliding_window
    r_bits = int(adj["r_bits"])
    theta_bits = int(adj["theta_bits"])
    qjl_dim = int(adj["qjl_dim"])
    outlier_fraction = adj["outlier_fraction"]
    outlier_boost = float(adj["outlier_boost"])

    decoder_config = config.get_text_config(decoder=True)
    n_layers = int(decoder_config.num_hidden_layers)
    shared = getattr(decoder_config, "num_kv_shared_layers", 0) or 0
    if shared:
        n_layers -= int(shared)

    omap: Dict[int, LayerOverride] = profile.layer_map() if profile is not None else {}

    layers = []
    for i in range(n_layers):
        rb = int(r_bits)
        tb = int(theta_bits)
        qd = int(qjl_dim)
        ofrac = outlier_fraction
        if i in omap:
            ov = omap[i]
            if ov.r_bits is not None:
                rb = int(ov.r_bits)
            if ov.theta_bits is not None:
                tb = int(ov.theta_bits)
            if ov.qjl_dim is not None:
                qd = int(ov.qjl_dim)
            if ov.outlier_fraction is not None:
                ofrac = float(ov.outlier_fraction)
            if ov.sliding_window is not None:
                sw = int(ov.sliding_window)
            elif adaptive_sliding_window:
                sw = sliding_window_for_layer(i, n_layers, sw_global_base)
            else:
                sw = sw_global_base
        elif adaptive_sliding_window:
            sw = sliding_window_for_layer(i, n_layers, sw_global_base)
        else:
            sw = sw_global_base
        layers.append(
            ZeroKVNeoQuantizedLayer(
                sliding_window=sw,
                r_bits=rb,
                theta_bits=tb,
                qjl_dim=qd,
                outlier_fraction=ofrac,
                layer_idx=i,
                hadamard_rest=hadamard_rest,
                max_fwht_rest_dim=max_fwht_rest_dim,
                heavy_hitter_budget=heavy_hitter_budget,
                outlier_boost=outlier_boost,
                online_adapt=online_adapt,
                online_adapt_lr=online_adapt_lr,
                online_adapt_momentum=online_adapt_momentum,
                online_adapt_reset_interval=online_adapt_reset_interval,
                residual_bits=residual_bits,
            )
        )
    return ZeroKVNeoCache(layers=layers)


def describe_gqa_cache_effect(
    config: PretrainedConfig,
    *,
    sliding_window: int = 256,
    r_bits: int = 3,
    theta_bits: int = 2,
    qjl_dim: int = 8,
    outlier_fraction: Optional[float] = None,
    auto_gqa_tune: bool = True,
) -> Dict[str, Any]:
    """For benchmarks / JSON: effective tuning knobs + ``gqa`` report (no cache build)."""
    adj, report = compute_gqa_adjustments(
        config,
        sliding_window=sliding_window,
        r_bits=r_bits,
        theta_bits=theta_bits,
        qjl_dim=qjl_dim,
        outlier_fraction=outlier_fraction,
        auto_gqa_tune=auto_gqa_tune,
    )
    out = {**adj, "gqa": report}
    return out
