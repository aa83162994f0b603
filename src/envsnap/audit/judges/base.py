"""What the judges share: the target names, the sources they cite, and how a finding is made.

See judge.py for what the judges decide and on which scale."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from envsnap.audit.model import Effort, Finding, Risk, Signal, Target
from envsnap.snapshot.redact import redact_text

HIP_SOURCE = "https://docs.pytorch.org/docs/stable/notes/hip.html"
ACCEL_SOURCE = "https://docs.pytorch.org/docs/stable/accelerator.html"
AMP_SOURCE = "https://docs.pytorch.org/docs/stable/amp.html"
DIST_SOURCE = "https://docs.pytorch.org/docs/stable/distributed.html#backends"
HIPIFY_SOURCE = "https://github.com/ROCm/HIPIFY"
SYCL_SOURCE = (
    "https://docs.pytorch.org/docs/stable/cpp_extension.html#torch.utils.cpp_extension.SyclExtension"
)
DPCT_SOURCE = "https://github.com/oneapi-src/SYCLomatic"
MPS_SOURCE = "https://docs.pytorch.org/docs/stable/notes/mps.html"
TRT_SOURCE = "https://docs.nvidia.com/deeplearning/tensorrt/latest/getting-started/support-matrix.html"
ORT_SOURCE = "https://onnxruntime.ai/docs/execution-providers/"
GGUF_SOURCE = "https://github.com/ggml-org/llama.cpp#supported-backends"
SERIALIZATION_SOURCE = "https://docs.pytorch.org/docs/stable/generated/torch.load.html"
JIT_SOURCE = "https://docs.pytorch.org/docs/stable/generated/torch.jit.load.html"
WAVE_SOURCE = "https://rocm.docs.amd.com/projects/HIP/en/latest/understand/programming_model.html"
DOCKER_SOURCE = "https://hub.docker.com/r/rocm/pytorch"

NAMES = {"cuda": "NVIDIA CUDA", "rocm": "ROCm", "xpu": "Intel XPU", "mps": "Apple MPS", "cpu": "CPU"}
# Device backends that are no target of envsnap's (a knowledge row's device_backend), named in messages.
BACKEND_NAMES = {**NAMES, "hpu": "Intel Gaudi (HPU)"}
DEVICE = {"xpu": "torch.device('xpu')", "mps": "torch.device('mps')", "cpu": "torch.device('cpu')"}
ACCELERATOR = (
    "choose the device once, `device = torch.accelerator.current_accelerator() or torch.device('cpu')`, "
    "and move with `.to(device)`"
)
LOWER_RISK: Mapping[Risk, Risk] = {"higher": "moderate", "moderate": "lower", "lower": "lower"}


@dataclass(frozen=True)
class Context:
    """What the judge may know about the source environment (installed versions by PEP 503 name)."""

    installed: Mapping[str, str] = field(default_factory=dict)


def cuda_api_works(target: Target) -> bool:
    """Whether ``torch.cuda`` (and ``.cuda()``, ``device="cuda"``) is the target's own device API."""
    return target.kind in ("cuda", "rocm")


def where(signal: Signal) -> str:
    """``file:line`` (or the file, or the subject for environment signals)."""
    if signal.file is None:
        return signal.subject
    return f"{signal.file}:{signal.line}" if signal.line else signal.file


def make_finding(
    signal: Signal, rule: str, meaning: str, effort: Effort, risk: Risk, replacement: str, source: str | None
) -> Finding:
    return Finding(
        rule=rule,
        layer=signal.layer,
        location=where(signal),
        code=redact_text(signal.code),  # a line of the project may hold a token next to the hit
        meaning=meaning,
        effort=effort,
        risk=risk,
        replacement=replacement,
        source=source,
    )


Judge = Callable[[Signal, Target, Context], "Finding | None"]
