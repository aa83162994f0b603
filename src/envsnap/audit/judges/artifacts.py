"""Model files on the target: TensorRT engines, TorchScript device pins, checkpoints, dtypes, ONNX
ops, GGUF."""

from __future__ import annotations

from collections.abc import Mapping

from envsnap.audit import knowledge
from envsnap.audit.judges.base import (
    GGUF_SOURCE,
    JIT_SOURCE,
    NAMES,
    ORT_SOURCE,
    SERIALIZATION_SOURCE,
    TRT_SOURCE,
    Context,
    cuda_api_works,
    make_finding,
)
from envsnap.audit.model import Effort, Finding, Risk, Signal, Target

# ---------------------------------------------------------------------------- artifacts


def judge_artifact(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    facts = signal.facts()
    kind = signal.subject
    if kind == "tensorrt-engine":
        if target.kind == "cuda":
            return make_finding(
                signal,
                "tensorrt-engine",
                "A TensorRT engine is compiled for one GPU and TensorRT release: it does not load "
                "on another architecture.",
                "medium",
                "moderate",
                f"rebuild the engine on {target.archs[0] if target.archs else 'the target'} from "
                "the ONNX model",
                TRT_SOURCE,
            )
        return make_finding(
            signal,
            "tensorrt-engine",
            f"A TensorRT engine is NVIDIA machine code: no runtime for it exists on {NAMES[target.kind]}.",
            "high",
            "higher",
            "export the source model to ONNX and compile for the target (MIGraphX / OpenVINO / Core ML)",
            TRT_SOURCE,
        )
    pinned = facts.get("cuda_locations")
    if kind == "torchscript":
        if not pinned or cuda_api_works(target):
            return make_finding(
                signal,
                "torchscript",
                "TorchScript archive: loads on the target.",
                "none",
                "lower",
                "",
                JIT_SOURCE,
            )
        return make_finding(
            signal,
            "torchscript-cuda-pinned",
            f"TorchScript archive with CUDA devices in its code or constants ({pinned}): "
            "map_location moves the "
            "weights, but device constants traced into the code stay 'cuda' and fail on "
            f"{NAMES[target.kind]}.",
            "medium",
            "moderate",
            "re-export on the target (torch.export or re-trace with the target device)",
            JIT_SOURCE,
        )
    if kind == "torch-checkpoint":
        if not pinned or cuda_api_works(target):
            return make_finding(
                signal,
                "checkpoint",
                "A torch checkpoint: loads on the target.",
                "none",
                "lower",
                "",
                SERIALIZATION_SOURCE,
            )
        return make_finding(
            signal,
            "checkpoint-cuda-storage",
            f"Saved from CUDA tensors ({pinned}): torch.load without map_location fails on "
            f"{NAMES[target.kind]}.",
            "low",
            "lower",
            f"`torch.load(path, map_location='{target.kind}', weights_only=True)`",
            SERIALIZATION_SOURCE,
        )
    if kind == "safetensors":
        return _safetensors(signal, target, facts.get("dtypes", ""))
    if kind == "onnx":
        return _onnx(signal, target, facts)
    if kind == "gguf":
        backends = {"cuda": "CUDA", "rocm": "HIP", "xpu": "SYCL", "mps": "Metal", "cpu": "CPU"}
        return make_finding(
            signal,
            "gguf",
            f"GGUF ({facts.get('architecture', 'model')}): portable; needs a llama.cpp built with "
            f"its {backends[target.kind]} backend.",
            "none",
            "lower",
            "",
            GGUF_SOURCE,
        )
    return None


def _safetensors(signal: Signal, target: Target, dtypes: str) -> Finding:
    present = set(dtypes.split(",")) if dtypes else set()
    notes: list[tuple[Effort, Risk, str, str]] = []
    if "F64" in present:
        note = knowledge.dtype_note("float64", target.kind)
        if note and note.support == "no":
            notes.append(("low", "moderate", f"F64 tensors: {note.note}", note.source))
    if any(d.startswith("F8") for d in present):
        note = knowledge.dtype_note("float8", target.kind)
        if note:
            risk: Risk = "higher" if note.support == "no" else "moderate"
            notes.append(
                (
                    "medium" if note.support == "no" else "low",
                    risk,
                    f"float8 tensors: {note.note}",
                    note.source,
                )
            )
    if "BF16" in present:
        note = knowledge.dtype_note("bfloat16", target.kind)
        if note:
            notes.append(("none", "lower", f"BF16 tensors: {note.note}", note.source))
    if not notes:
        return make_finding(
            signal,
            "safetensors",
            f"safetensors ({dtypes or 'no tensors'}): loads on every target.",
            "none",
            "lower",
            "",
            "https://huggingface.co/docs/safetensors/",
        )
    effort, risk, meaning, source = max(
        notes, key=lambda n: (("lower", "moderate", "higher").index(n[1]), n[0])
    )
    replacement = (
        "convert the weights at load (`tensor.to(torch.bfloat16)` / float32)" if risk != "lower" else ""
    )
    return make_finding(
        signal, "safetensors-dtype", f"safetensors ({dtypes}): {meaning}", effort, risk, replacement, source
    )


def _onnx(signal: Signal, target: Target, facts: Mapping[str, str]) -> Finding:
    runtime = {
        "cuda": "onnxruntime-gpu (CUDA EP)",
        "rocm": "onnxruntime-migraphx (MIGraphX EP)",
        "xpu": "onnxruntime-openvino (OpenVINO EP)",
        "mps": "onnxruntime (CoreML EP)",
        "cpu": "onnxruntime (CPU EP)",
    }[target.kind]
    custom = [d for d in facts.get("custom_domains", "").split(",") if d]
    opset = facts.get("opset", "?")
    foreign = [d for d in custom if d != "com.microsoft"]
    if foreign:
        return make_finding(
            signal,
            "onnx-custom-ops",
            f"ONNX opset {opset} with custom ops ({facts.get('custom_ops', '')}) in domain(s) "
            f"{', '.join(foreign)}: "
            "they need their plugin on the target runtime.",
            "high",
            "higher",
            f"replace the custom ops with standard ONNX ops, then run with {runtime}",
            ORT_SOURCE,
        )
    if custom:
        return make_finding(
            signal,
            "onnx-contrib-ops",
            f"ONNX opset {opset} with ONNX Runtime contrib ops (com.microsoft): not every execution provider "
            "implements them; the rest run on the CPU.",
            "low",
            "moderate",
            f"run with {runtime} and check which nodes fall back",
            ORT_SOURCE,
        )
    return make_finding(
        signal,
        "onnx",
        f"ONNX opset {opset}, standard ops only: portable.",
        "none",
        "lower",
        f"run with {runtime}",
        ORT_SOURCE,
    )
