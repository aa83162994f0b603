"""What the float32 math settings of two runs (numerics.py) mean for comparing their numbers. Torch-free.

Where either side allowed TF32 on a CUDA device (NVIDIA, or a ROCm build, which keeps torch.cuda's
names), a float32 value computed by a matmul or cuDNN op (convolution, RNN) may carry TF32's
rounding: its inputs read with 10 mantissa bits, so unit roundoff 2^-11 and epsilon 2^-10, the same
as float16's. Such values (and those computed from them) are compared at float16's tolerance and
judged as a whole, like a cast (tolerance.py), and the report names the setting. Only *allowed* is
known: a GPU without TF32 (before Ampere) ignores the setting, so the tolerance is a bound, never a
claim that TF32 ran. ``float32_matmul_precision`` "high" and "medium" allow TF32 for matmuls on CUDA
(torch.set_float32_matmul_precision); ``NVIDIA_TF32_OVERRIDE=0`` forbids it underneath torch.

Sources: PyTorch notes "Numerical accuracy" (TensorFloat-32 on Nvidia Ampere and later devices) and
"CUDA semantics" (TensorFloat-32 (TF32) on Ampere (and later) devices), NVIDIA's TF32 blog post.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from envsnap.inprocess.tolerance import Tolerance

MATMUL_TF32 = "cuda.matmul.allow_tf32"
CUDNN_TF32 = "cudnn.allow_tf32"
MATMUL_PRECISION = "float32_matmul_precision"
OVERRIDE = "NVIDIA_TF32_OVERRIDE"

ENVIRONMENT = (OVERRIDE, "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "HIPBLASLT_ALLOW_TF32")
"""Environment variables that change float32 math under torch's own settings."""

KNOWN = (
    MATMUL_PRECISION,
    MATMUL_TF32,
    CUDNN_TF32,
    "cuda.matmul.allow_fp16_reduced_precision_reduction",
    "cuda.matmul.allow_bf16_reduced_precision_reduction",
    "deterministic_algorithms",
    "cudnn.deterministic",
    "cudnn.benchmark",
    "default_dtype",
    *ENVIRONMENT,
)
"""Every setting numerics.py reads; a bundle's other keys are never read (a bundle may be hostile)."""

REDUCED_MATH = "reduced-precision float32 math"
"""In a value's tolerance source when it was compared at a reduced format's tolerance."""

TOLERANCE: dict[str, Tolerance] = {"tf32": (1e-3, 1e-5)}
"""TF32's epsilon is float16's: torch.testing.assert_close's float16 pair."""

OPS = {
    "matmul": (
        "aten.mm.",
        "aten.addmm.",
        "aten.bmm.",
        "aten.baddbmm.",
        "aten.addbmm.",
        "aten.matmul.",
        "aten.linear.",
        "aten._addmm_activation.",
        "aten._scaled_dot_product",
        "aten.scaled_dot_product",
    ),
    "cudnn": ("aten.convolution.", "aten._convolution.", "aten.cudnn_convolution", "aten._cudnn_rnn."),
}
"""ATen ops (op_log.py signatures) each kind of setting reaches."""

ACCELERATED = ("cuda",)
"""Device types where torch's TF32 settings act."""


def reduced(settings: Mapping[str, str], device: str | None) -> dict[str, str]:
    """Per kind of op ("matmul", "cudnn"): why this side allowed TF32 for it (empty: none)."""
    if device not in ACCELERATED or settings.get(OVERRIDE) == "0":
        return {}
    found = {}
    precision = settings.get(MATMUL_PRECISION)
    if settings.get(MATMUL_TF32) == "True":
        found["matmul"] = f"{MATMUL_TF32}=True"
    elif precision in ("high", "medium"):
        found["matmul"] = f"{MATMUL_PRECISION}={precision}"
    if settings.get(CUDNN_TF32) == "True":
        found["cudnn"] = f"{CUDNN_TF32}=True (the default)"
    return found


def between(
    reference: Mapping[str, str],
    reference_device: str | None,
    target: Mapping[str, str],
    target_device: str | None,
) -> dict[str, tuple[str, str]]:
    """Per kind of op, (format, why) where either side allowed TF32: its values may differ by it."""
    ours, theirs = reduced(reference, reference_device), reduced(target, target_device)
    found = {}
    for kind in ("matmul", "cudnn"):
        sides = [f"the reference ({ours[kind]} on {reference_device})"] if kind in ours else []
        sides += [f"the target ({theirs[kind]} on {target_device})"] if kind in theirs else []
        if sides:
            ops = "matmuls" if kind == "matmul" else "cuDNN convolutions/RNNs"
            found[kind] = ("tf32", f"TF32 {ops} allowed on {' and '.join(sides)}")
    return found


def applies(math: Mapping[str, tuple[str, str]], ops: Sequence[str]) -> tuple[str, str] | None:
    """The (format, why) that reaches a module call whose own float32 ops are ``ops``; None: none."""
    for kind, prefixes in OPS.items():
        if kind in math and any(op.startswith(prefixes) and "f32" in op for op in ops):
            return math[kind]
    return None


VALUE = re.compile(r"True|False|highest|high|medium|unknown|b?float(16|32|64)|[0-9]{1,3}")
"""Every value a known setting takes; a bundle's other values are dropped, never shown."""


def known(settings: Mapping[str, object]) -> dict[str, str]:
    """The known settings whose values are ones they take (a bundle may be hostile)."""
    return {
        name: value
        for name in KNOWN
        if name in settings and VALUE.fullmatch(value := str(settings[name])) is not None
    }


def differences(reference: Mapping[str, str], target: Mapping[str, str]) -> list[str]:
    """``name reference → target`` for each known setting both sides recorded and that differs."""
    return [
        f"{name} {reference[name]} → {target[name]}"
        for name in KNOWN
        if name in reference and name in target and reference[name] != target[name]
    ]
