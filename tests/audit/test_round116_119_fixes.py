"""Fixes after measurement rounds 116-123 (#22): an entry point that asserts CUDA tensors; torch.compile in a
function named for compiling.

SageAttention 1.0.6 (round 117) is Triton kernels only, which Intel's Triton backend compiles too, but its
``sageattn`` starts with ``assert q.is_cuda, "Input tensors must be on cuda."``: an XPU tensor is refused
before any kernel runs. envsnap read the project as a Triton swap, *lower* for *moderate*.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from envsnap.audit.scanners.python_shapes import asserts_cuda_tensor
from tests.audit.conftest import audit_files, raised

# sageattention 1.0.6 sageattention/core.py (sageattn, trimmed).
CORE = """\
import torch
import triton


def sageattn(q, k, v):
    dtype = q.dtype
    assert q.is_cuda, "Input tensors must be on cuda."
    assert dtype in [torch.float16, torch.bfloat16, torch.float32]
    return q @ k.transpose(-1, -2) @ v
"""
# lion-pytorch 0.2.5 lion_pytorch/triton.py (trimmed): a fast path that guards its own triton import.
LION_TRITON = """\
import torch

try:
    import triton
except ImportError as e:
    print("triton is not installed, please install by running `pip install triton>=2.2.0`")
    exit()


def update_fn(p, grad, exp_avg, lr, wd, beta1, beta2):
    assert all([t.is_cuda for t in (p, grad, exp_avg)])
    p.data.mul_(1 - lr * wd)
"""


@pytest.mark.parametrize(
    ("test", "asserts"),
    [
        ("q.is_cuda", True),
        ("all(t.is_cuda for t in ts)", True),
        ("all([t.is_cuda for t in ts])", True),
        ("x.is_cuda and x.is_contiguous()", True),
        ("x.is_cuda == True", True),
        ("not x.is_cuda", False),  # a CPU-only op
        ('x.is_cuda or x.device.type == "cpu"', False),  # other devices admitted
        ("x.is_contiguous()", False),
    ],
)
def test_which_asserts_require_a_cuda_tensor(test: str, asserts: bool) -> None:
    statement = ast.parse(f"assert {test}").body[0]
    assert isinstance(statement, ast.Assert)
    assert asserts_cuda_tensor(statement.test) is asserts


def test_an_entry_point_asserting_cuda_tensors_refuses_xpu(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"sageattention/core.py": CORE}, "xpu")
    asserted = [f for f in report.findings if f.location == "sageattention/core.py:7"]
    assert [(f.rule, f.risk) for f in asserted] == [("torch-cuda-api", "moderate")]
    assert "are refused before the code it protects runs" in asserted[0].meaning
    assert report.verdict.risk == "moderate"


def test_the_assert_passes_on_rocm(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"sageattention/core.py": CORE}, "rocm:gfx942")
    assert "torch-cuda-api" not in raised(report)


def test_an_assert_in_a_fast_path_that_guards_its_own_import_is_that_paths(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"lion_pytorch/triton.py": LION_TRITON}, "xpu")
    asserted = [f for f in report.findings if f.rule == "torch-cuda-api"]
    assert [f.risk for f in asserted] == ["lower"]
    assert report.verdict.risk == "lower"


# pytorch-mppi 0.9.1 pytorch_mppi/mppi.py (MPPI.compile, trimmed): a method the library never calls itself.
MPPI = """\
import torch


class MPPI:
    def __init__(self, dynamics):
        self._dynamics_fn = dynamics

    def compile(self, **kwargs):
        self._dynamics_fn = torch.compile(self._dynamics_fn, **kwargs)
"""


def test_compile_in_a_function_named_for_it_is_the_callers_request(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"pytorch_mppi/mppi.py": MPPI}, "mps")
    compiled = [f for f in report.findings if f.rule == "torch-compile-mps"]
    assert [f.risk for f in compiled] == ["lower"]
    assert report.verdict.risk == "lower"


def test_compile_in_the_constructor_still_counts(tmp_path: Path) -> None:
    text = MPPI.replace(
        "        self._dynamics_fn = dynamics\n", "        self._dynamics_fn = torch.compile(dynamics)\n"
    )
    assert "torch-compile-mps" in raised(audit_files(tmp_path, {"pytorch_mppi/mppi.py": text}, "mps"))


# sru 2.6.0 sru/cuda_functional.py (trimmed): the sources are a variable; the handler builds a dummy.
SRU = """\
import os
import warnings

from torch.utils.cpp_extension import load

try:
    sources = [os.path.join(os.path.dirname(__file__), "csrc", "sru_cuda_kernel.cu")]
    load(name="sru_cuda", sources=sources, is_python_module=False)
except Exception as e:
    warnings.warn("Just-in-time loading and compiling the CUDA kernels of SRU was unsuccessful.")
    sources_dummy = [os.path.join(os.path.dirname(__file__), "csrc", "sru_cuda_impl_dummy.cpp")]
    load(name="sru_cuda", sources=sources_dummy, is_python_module=False)
"""
KERNEL = "__global__ void sru_fwd(const float* u, float* h, int n) { int i = threadIdx.x; h[i] = u[i]; }\n"


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_a_swallowed_jit_build_of_variable_sources_is_optional(tmp_path: Path, target: str) -> None:
    files = {"sru/cuda_functional.py": SRU, "sru/csrc/sru_cuda_kernel.cu": KERNEL}
    report = audit_files(tmp_path, files, target)
    sources = [f for f in report.findings if f.location.startswith("sru/csrc/")]
    assert sources
    assert {f.risk for f in sources} == {"lower"}
    assert report.verdict.risk == "lower"


def test_the_same_build_without_its_try_is_required(tmp_path: Path) -> None:
    text = SRU.split("try:\n")[0] + (
        'sources = ["csrc/sru_cuda_kernel.cu"]\nload(name="sru_cuda", sources=sources)\n'
    )
    files = {"sru/cuda_functional.py": text, "sru/csrc/sru_cuda_kernel.cu": KERNEL}
    assert audit_files(tmp_path, files, "xpu").verdict.risk == "higher"


# fastcoref 2.1.6 fastcoref/trainer.py (CorefTrainer.train, trimmed): CUDA's autocast and CUDA's scaler.
TRAINER = """\
import torch


def train(model, batches, optimizer):
    scaler = torch.cuda.amp.GradScaler()
    for batch in batches:
        with torch.cuda.amp.autocast():
            loss = model(batch)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_cuda_scaler_beside_cudas_autocast_has_nothing_to_scale(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, {"fastcoref/trainer.py": TRAINER}, target)
    scalers = [f for f in report.findings if f.rule == "cuda-grad-scaler"]
    assert [f.risk for f in scalers] == ["lower"]
    assert "float32" in scalers[0].meaning
    assert report.verdict.risk == "lower"


def test_a_cuda_scaler_beside_a_device_generic_autocast_still_counts(tmp_path: Path) -> None:
    text = TRAINER.replace("torch.cuda.amp.autocast()", "torch.autocast(device_type=model.device.type)")
    assert "cuda-grad-scaler" in raised(audit_files(tmp_path, {"fastcoref/trainer.py": text}, "xpu"))
