"""Model load order: optional AWQ (CUDA) → bitsandbytes 4/8-bit (CUDA) → FP16/FP32."""

from __future__ import annotations

import os
from typing import Any, Optional, Tuple

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig


def _model_id_suggests_awq(model_id: str) -> bool:
    m = model_id.lower()
    return "awq" in m or m.endswith("-awq")


def pick_device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def load_model_with_fallback(
    model_id: str,
    *,
    device: Optional[torch.device] = None,
    prefer_awq: Optional[bool] = None,
) -> Tuple[Any, Any, str]:
    """
    Returns (model, tokenizer, load_tag).
    `low_cpu_mem_usage=True` always.

    AWQ (``autoawq``): CUDA only. Tries when ``prefer_awq=True``, or when
    ``ZEROKV_PREFER_AWQ=1``, or when the model id contains ``awq``.
    ``fuse_layers=False`` keeps layers compatible with HF ``generate`` + custom cache.
    """
    if device is None:
        device = pick_device()

    env_awq = os.environ.get("ZEROKV_PREFER_AWQ", "").lower() in ("1", "true", "yes")
    try_awq = prefer_awq if prefer_awq is not None else (env_awq or _model_id_suggests_awq(model_id))

    tokenizer = AutoTokenizer.from_pretrained(model_id, trust_remote_code=True, use_fast=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token

    common = dict(
        trust_remote_code=True,
        low_cpu_mem_usage=True,
    )

    # Pre-quantized AWQ weights (CUDA; ~4 GB for 7B-class models)
    if device.type == "cuda" and try_awq:
        try:
            from awq import AutoAWQForCausalLM  # type: ignore[import-untyped]

            model = AutoAWQForCausalLM.from_quantized(
                model_id,
                fuse_layers=False,
                trust_remote_code=True,
                device_map="auto",
            )
            return model, tokenizer, "AWQ-autoawq"
        except Exception:
            pass

    # 4-bit NF4 (CUDA only — bitsandbytes needs CUDA)
    if device.type == "cuda":
        try:
            import bitsandbytes  # noqa: F401

            bnb_config = BitsAndBytesConfig(
                load_in_4bit=True,
                bnb_4bit_compute_dtype=torch.bfloat16,
                bnb_4bit_quant_type="nf4",
                bnb_4bit_use_double_quant=True,
            )
            model = AutoModelForCausalLM.from_pretrained(
                model_id,
                quantization_config=bnb_config,
                device_map="auto",
                dtype=torch.bfloat16,
                **common,
            )
            return model, tokenizer, "4-bit-NF4-bitsandbytes"
        except Exception:
            pass

        try:
            model = AutoModelForCausalLM.from_pretrained(
                model_id,
                load_in_8bit=True,
                device_map="auto",
                dtype=torch.float16,
                **common,
            )
            return model, tokenizer, "8-bit-bitsandbytes"
        except Exception:
            pass

    dtype = torch.float16 if device.type != "cpu" else torch.float32
    model = AutoModelForCausalLM.from_pretrained(
        model_id,
        dtype=dtype,
        device_map=None,
        **common,
    )
    model = model.to(device)
    return model, tokenizer, f"FP{16 if dtype == torch.float16 else 32}-{device.type}"
