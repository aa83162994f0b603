"""
Learned-style calibration: grid search on a short text slice to pick per-layer
``r_bits`` / ``theta_bits`` / ``qjl_dim`` / ``outlier_fraction`` minimizing
single-step KV reconstruction MSE (keys only; values follow same knobs at runtime).

No weight training — only cache hyperparameters.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, List, Optional, Sequence

import torch
import torch.nn.functional as F

from zerokv.gqa import compute_gqa_adjustments
from zerokv.hadamard import MAX_FWHT_REST_DIM
from zerokv.profiles import LayerOverride, ZerokvProfile
from zerokv.quant import compress_kv_tensor, decompress_kv_tensor

DEFAULT_CALIBRATION_TR = (
    "Ankara, Türkiye'nin başkentidir. Boğaz köprüleri İstanbul'u iki yakaya bağlar. "
    "The quick brown fox jumps over the lazy dog. "
    "Machine learning models compress context using attention over key-value tensors."
)


def _key_tensors_from_past(past: Any) -> List[torch.Tensor]:
    """Best-effort extraction of per-layer key tensors ``[B,H,S,D]``."""
    if past is None:
        return []
    # Legacy tuple cache
    if isinstance(past, tuple):
        out: List[torch.Tensor] = []
        for item in past:
            if isinstance(item, tuple) and len(item) >= 1 and torch.is_tensor(item[0]):
                out.append(item[0].detach())
        return out
    kc = getattr(past, "key_cache", None)
    if kc is not None:
        return [x.detach() for x in kc if x is not None and torch.is_tensor(x)]
    layers = getattr(past, "layers", None)
    if layers is not None:
        out = []
        for layer in layers:
            k = getattr(layer, "keys", None)
            if k is not None and torch.is_tensor(k) and k.numel() > 0:
                out.append(k.detach())
        return out
    return []


def eval_keys_compression_mse(
    keys: torch.Tensor,
    *,
    r_bits: int,
    theta_bits: int,
    qjl_dim: int,
    outlier_fraction: float,
    layer_idx: int,
    hadamard_rest: bool = True,
    max_fwht_rest_dim: int = MAX_FWHT_REST_DIM,
) -> float:
    """One compress/decompress round-trip MSE on key tensor."""
    k = keys.contiguous()
    seed = 10007 * (layer_idx + 1)
    block = compress_kv_tensor(
        k,
        r_bits=r_bits,
        theta_bits=theta_bits,
        qjl_dim=qjl_dim,
        outlier_fraction=outlier_fraction,
        layer_seed=seed,
        hadamard_rest=hadamard_rest,
        max_fwht_rest_dim=max_fwht_rest_dim,
    )
    recon = decompress_kv_tensor(block, device=k.device).to(k.dtype)
    return float(F.mse_loss(recon.float(), k.float()).item())


def eval_keys_compression_mse_with_virtual_tail(
    keys: torch.Tensor,
    *,
    sliding_window: int,
    r_bits: int,
    theta_bits: int,
    qjl_dim: int,
    outlier_fraction: float,
    layer_idx: int,
    hadamard_rest: bool = True,
    max_fwht_rest_dim: int = MAX_FWHT_REST_DIM,
) -> float:
    """
    MSE on the prefix that would be compressed if the last ``sliding_window``
    tokens stayed in FP16 (precision guard). Approximates flush quality vs tail size.
    """
    S = keys.shape[-2]
    if S <= 1:
        return 0.0
    if S <= sliding_window:
        prefix = keys[..., : S - 1, :]
    else:
        prefix = keys[..., :-sliding_window, :]
    if prefix.shape[-2] == 0:
        return 0.0
    return eval_keys_compression_mse(
        prefix,
        r_bits=r_bits,
        theta_bits=theta_bits,
        qjl_dim=qjl_dim,
        outlier_fraction=outlier_fraction,
        layer_idx=layer_idx,
        hadamard_rest=hadamard_rest,
        max_fwht_rest_dim=max_fwht_rest_dim,
    )


def _mean_mse_all_layers(
    key_tensors: Sequence[torch.Tensor],
    *,
    r_bits: int,
    theta_bits: int,
    qjl_dim: int,
    outlier_fraction: float,
) -> float:
    if not key_tensors:
        return float("inf")
    s = 0.0
    for i, kt in enumerate(key_tensors):
        s += eval_keys_compression_mse(
            kt,
            r_bits=r_bits,
            theta_bits=theta_bits,
            qjl_dim=qjl_dim,
            outlier_fraction=outlier_fraction,
            layer_idx=i,
        )
    return s / len(key_tensors)


def calibrate(
    model: Any,
    tokenizer: Any,
    *,
    calibration_text: str = DEFAULT_CALIBRATION_TR,
    device: torch.device,
    max_length: int = 256,
    auto_gqa_tune: bool = True,
    hadamard_rest: bool = True,
    max_fwht_rest_dim: int = MAX_FWHT_REST_DIM,
    r_bits_candidates: Sequence[int] = (3, 4, 5),
    theta_bits_candidates: Sequence[int] = (2, 3),
    qjl_dim_candidates: Sequence[int] = (8, 16, 24),
    outlier_global: float = 0.10,
    outlier_per_layer_candidates: Sequence[float] = (0.08, 0.10, 0.12, 0.14, 0.16),
    sliding_window_candidates: Sequence[int] = (64, 128, 192, 256),
    domain: str = "custom",
    model_id: Optional[str] = None,
) -> ZerokvProfile:
    """
    1) Single forward with ``use_cache=True`` to capture FP keys per layer.
    2) Global grid on (r_bits, theta_bits, qjl_dim) minimizing mean layer MSE.
    3) Per-layer grid on ``outlier_fraction`` and ``sliding_window`` (virtual-tail MSE)
       with global (r,t,q) fixed.
    """
    enc = tokenizer(calibration_text, return_tensors="pt", truncation=True, max_length=max_length)
    input_ids = enc["input_ids"].to(device)
    with torch.inference_mode():
        out = model(input_ids=input_ids, use_cache=True)
    key_tensors = _key_tensors_from_past(out.past_key_values)
    if not key_tensors:
        raise RuntimeError(
            "calibrate: could not extract key tensors from past_key_values; "
            "check transformers cache layout for this model."
        )

    # Move to same device as model for compress (MPS/CUDA)
    key_tensors = [k.to(device) for k in key_tensors]

    base_sw = 256
    adj, _gqa_rep = compute_gqa_adjustments(
        model.config,
        sliding_window=base_sw,
        r_bits=3,
        theta_bits=2,
        qjl_dim=8,
        outlier_fraction=None,
        auto_gqa_tune=auto_gqa_tune,
    )
    # Narrow search around GQA-adjusted bit targets when possible
    center_r, center_t, center_q = int(adj["r_bits"]), int(adj["theta_bits"]), int(adj["qjl_dim"])
    rb_set = sorted(set(list(r_bits_candidates) + [center_r]))
    tb_set = sorted(set(list(theta_bits_candidates) + [center_t]))
    qd_set = sorted(set(list(qjl_dim_candidates) + [center_q]))

    best_global = (center_r, center_t, center_q)
    best_mse = float("inf")
    for rb in rb_set:
        for tb in tb_set:
            for qd in qd_set:
                m = _mean_mse_all_layers(
                    key_tensors,
                    r_bits=rb,
                    theta_bits=tb,
                    qjl_dim=qd,
                    outlier_fraction=outlier_global,
                )
                if m < best_mse:
                    best_mse = m
                    best_global = (rb, tb, qd)

    br, bt, bq = best_global
    layers_out: List[LayerOverride] = []
    for i, kt in enumerate(key_tensors):
        best_of = outlier_global
        best_sw = int(sliding_window_candidates[-1])
        best_local = float("inf")
        for of in outlier_per_layer_candidates:
            for sw in sliding_window_candidates:
                m = eval_keys_compression_mse_with_virtual_tail(
                    kt,
                    sliding_window=int(sw),
                    r_bits=br,
                    theta_bits=bt,
                    qjl_dim=bq,
                    outlier_fraction=float(of),
                    layer_idx=i,
                    hadamard_rest=hadamard_rest,
                    max_fwht_rest_dim=max_fwht_rest_dim,
                )
                if m < best_local:
                    best_local = m
                    best_of = float(of)
                    best_sw = int(sw)
        layers_out.append(
            LayerOverride(
                layer_idx=i,
                r_bits=br,
                theta_bits=bt,
                qjl_dim=bq,
                outlier_fraction=best_of,
                sliding_window=best_sw,
            )
        )

    return ZerokvProfile(
        version="1",
        domain=domain,
        model_id=model_id,
        notes=(
            f"calibrate mean_key_mse_global≈{best_mse:.6g} r={br} theta={bt} qjl={bq} "
            f"max_length={max_length} auto_gqa_tune={auto_gqa_tune} "
            f"per_layer_sw+outlier_grid"
        ),
        layers=layers_out,
    )


def _main() -> None:
    ap = argparse.ArgumentParser(description="Calibrate ZeroKV profile from FP KV snapshot (keys)")
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True, help="Output JSON path")
    ap.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"))
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--domain", default="custom")
    ap.add_argument("--calibration-text-file", default=None, help="UTF-8 text file; else built-in EN/TR mix")
    ap.add_argument("--no-gqa-auto-tune", action="store_true")
    ap.add_argument(
        "--prefer-awq",
        action="store_true",
        help="Try AWQ path first on CUDA (needs pip install autoawq; model id often contains 'awq')",
    )
    args = ap.parse_args()

    if args.device == "auto":
        from zerokv.loader import pick_device

        device = pick_device()
    else:
        device = torch.device(args.device)

    text = DEFAULT_CALIBRATION_TR
    if args.calibration_text_file:
        with open(args.calibration_text_file, encoding="utf-8") as f:
            text = f.read()

    from transformers import AutoModelForCausalLM, AutoTokenizer

    from zerokv.loader import load_model_with_fallback

    model, tokenizer, _ = load_model_with_fallback(
        args.model, device=device, prefer_awq=args.prefer_awq or None
    )
    prof = calibrate(
        model,
        tokenizer,
        calibration_text=text,
        device=device,
        max_length=args.max_length,
        auto_gqa_tune=not args.no_gqa_auto_tune,
        domain=args.domain,
        model_id=args.model,
    )
    prof.save_json(args.out)
    print(json.dumps({"saved": args.out, "layers": len(prof.layers), "notes": prof.notes}, indent=2))


if __name__ == "__main__":
    _main()
