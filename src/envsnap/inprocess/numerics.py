"""The process's float32 math settings: what makes the same code give other numbers on a GPU.

TF32 (NVIDIA Ampere and newer) reads only the first 10 bits of each float32 input's mantissa in
matmuls and convolutions, so results carry TF32's precision (~1e-3 relative), not float32's
(PyTorch, "Numerical accuracy" and "CUDA semantics: TensorFloat-32"). PyTorch allows it for cuDNN
convolutions by default and for matmuls only when asked (``allow_tf32``, or
``set_float32_matmul_precision("high"|"medium")``, which Lightning and many training scripts set);
``NVIDIA_TF32_OVERRIDE=0`` turns it off underneath. A recording made with it and a target run
without it (or on a GPU without TF32) differ by TF32's rounding, which float32's tolerance calls a
failure. Both sides' settings go into the bundle and the report; fp32_math.py says what they mean.
"""

from __future__ import annotations

import os

import torch

from envsnap.inprocess.fp32_math import CUDNN_TF32, ENVIRONMENT, MATMUL_PRECISION, MATMUL_TF32, known


def _flag(read: object) -> str:
    try:
        return str(read() if callable(read) else read)
    except (AttributeError, RuntimeError):  # an older torch without the setting
        return "unknown"


def read_numerics() -> dict[str, str]:
    """The settings now, by name (torch's attribute path, or the environment variable)."""
    backends = torch.backends
    found = {
        MATMUL_PRECISION: _flag(torch.get_float32_matmul_precision),
        MATMUL_TF32: _flag(lambda: backends.cuda.matmul.allow_tf32),
        CUDNN_TF32: _flag(lambda: backends.cudnn.allow_tf32),
        "cuda.matmul.allow_fp16_reduced_precision_reduction": _flag(
            lambda: backends.cuda.matmul.allow_fp16_reduced_precision_reduction
        ),
        "cuda.matmul.allow_bf16_reduced_precision_reduction": _flag(
            lambda: backends.cuda.matmul.allow_bf16_reduced_precision_reduction
        ),
        "deterministic_algorithms": _flag(torch.are_deterministic_algorithms_enabled),
        "cudnn.deterministic": _flag(lambda: backends.cudnn.deterministic),
        "cudnn.benchmark": _flag(lambda: backends.cudnn.benchmark),
        "default_dtype": _flag(lambda: str(torch.get_default_dtype()).removeprefix("torch.")),
    }
    for name in ENVIRONMENT:
        if name in os.environ:
            found[name] = os.environ[name]
    return known(found)  # values outside the settings' vocabulary are dropped, never written
