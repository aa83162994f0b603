"""Fixes after measurement rounds 140-143 (#22): a header of declarations that goes with twinned CUDA
sources; float64 in a ``try`` that handles MPS's refusal.

TorchOpt 0.7.3 (round 143) keeps ``src/adam_op/adam_op_impl_cuda.cu`` beside ``adam_op_impl_cpu.cpp``, and
the declarations in ``include/adam_op/adam_op_impl_cuda.cuh``: the .cu file was read as a kernel with a CPU
twin (moderate) but the header, in another folder, as CUDA code to port (*higher* on XPU and MPS, two levels
above the truth). toto-ts 0.2.0 (round 140) casts to float64 in a ``try`` whose ``except TypeError`` falls
back to float32 "for devices that don't support float64": read as float64 on MPS.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from envsnap.audit.scanners.python_shapes import catches_dtype_refusal
from tests.audit.conftest import audit_files, raised

# torchopt 0.7.3 (trimmed): the declarations header, the CUDA kernel and its CPU twin.
HEADER = """\
#pragma once

#include <torch/extension.h>

namespace torchopt {
namespace adam_op {
torch::Tensor adamForwardMuCUDA(const torch::Tensor &updates, const torch::Tensor &mu, const float b1);
}  // namespace adam_op
}  // namespace torchopt
"""
KERNEL = """\
#include <torch/extension.h>
#include "include/adam_op/adam_op_impl_cuda.cuh"

namespace torchopt {
namespace adam_op {
template <typename scalar_t, typename other_t>
__global__ void adamForwardMuCUDAKernel(const scalar_t *__restrict__ updates_ptr,
                                        const scalar_t *__restrict__ mu_ptr,
                                        const other_t b1,
                                        const size_t n,
                                        scalar_t *__restrict__ mu_out_ptr) {
  const size_t toffset = (threadIdx.x + blockIdx.x * blockDim.x);
  if (toffset >= n) {
    return;
  }
  mu_out_ptr[toffset] = b1 * mu_ptr[toffset] + (1 - b1) * updates_ptr[toffset];
}

torch::Tensor adamForwardMuCUDA(const torch::Tensor &updates, const torch::Tensor &mu, const float b1) {
  auto mu_out = torch::empty_like(mu);
  const size_t n = updates.numel();
  adamForwardMuCUDAKernel<float, float><<<(n + 255) / 256, 256>>>(
      updates.data_ptr<float>(), mu.data_ptr<float>(), b1, n, mu_out.data_ptr<float>());
  return mu_out;
}
}  // namespace adam_op
}  // namespace torchopt
"""
CPU_TWIN = """\
#include <torch/extension.h>

namespace torchopt {
namespace adam_op {
torch::Tensor adamForwardMuCPU(const torch::Tensor &updates, const torch::Tensor &mu, const float b1) {
  return b1 * mu + (1 - b1) * updates;
}
}  // namespace adam_op
}  // namespace torchopt
"""


def _torchopt(with_twin: bool) -> dict[str, str]:
    files = {
        "include/adam_op/adam_op_impl_cuda.cuh": HEADER,
        "src/adam_op/adam_op_impl_cuda.cu": KERNEL,
    }
    if with_twin:
        files["src/adam_op/adam_op_impl_cpu.cpp"] = CPU_TWIN
    return files


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_declarations_header_goes_with_its_twinned_sources(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _torchopt(with_twin=True), target)
    header = [f for f in report.findings if f.location.startswith("include/adam_op/adam_op_impl_cuda.cuh")]
    assert [(f.rule, f.risk) for f in header] == [("cuda-kernel-cpu-twin", "moderate")]
    assert report.verdict.risk == "moderate"


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_without_the_cpu_twin_the_kernel_is_still_to_port(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _torchopt(with_twin=False), target)
    assert report.verdict.risk == "higher"
    assert "cuda-kernel-cpu-twin" not in raised(report)


def test_a_header_with_a_kernel_of_its_own_is_not_a_declaration(tmp_path: Path) -> None:
    files = _torchopt(with_twin=True)
    files["include/adam_op/adam_op_impl_cuda.cuh"] = HEADER + (
        "__global__ void scale(float *x, float a, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) x[i] *= a;\n"
        "}\n"
    )
    report = audit_files(tmp_path, files, "xpu")
    header = [f for f in report.findings if f.location.startswith("include/adam_op/")]
    assert [(f.rule, f.risk) for f in header] == [("cuda-source", "higher")]


# toto-ts 0.2.0 toto/model/scaler.py (StdMeanScaler.__call__, trimmed).
SCALER = """\
import warnings

import torch


def standardize(data, weights):
    try:
        high_precision_data = data.to(torch.float64)
    except TypeError:
        # Certain backends (particularly MacOS/MPS) don't support float64.
        warnings.warn(f"Float64 is not supported by device {data.device}.", RuntimeWarning)
        high_precision_data = data.to(torch.float32)
    denominator = weights.sum(-1, keepdim=True).clamp_min(1.0).to(high_precision_data.dtype)
    return (high_precision_data * weights).sum(-1, keepdim=True) / denominator
"""


def test_float64_whose_refusal_is_handled_falls_back_on_mps(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"toto/model/scaler.py": SCALER}, "mps")
    cast = [f for f in report.findings if f.location == "toto/model/scaler.py:8"]
    assert [(f.rule, f.risk) for f in cast] == [("float64-with-fallback", "lower")]
    assert report.verdict.risk == "lower"


@pytest.mark.parametrize(
    "handler",
    [
        "except ValueError:\n        high_precision_data = data.to(torch.float32)",  # not MPS's refusal
        'except TypeError:\n        raise RuntimeError("float64 needed")',  # handled by failing
        "except Exception:\n        high_precision_data = data.to(torch.float32)",  # too broad to say
    ],
)
def test_other_handlers_leave_float64_on_mps(tmp_path: Path, handler: str) -> None:
    source = (
        "import torch\n\n\ndef standardize(data):\n    try:\n        high_precision_data = "
        f"data.to(torch.float64)\n    {handler}\n    return high_precision_data\n"
    )
    report = audit_files(tmp_path, {"toto/model/scaler.py": source}, "mps")
    assert "float64-on-mps" in raised(report)


@pytest.mark.parametrize(
    ("handler", "handles"),
    [
        ("except TypeError:\n    y = 1", True),
        ("except (TypeError, RuntimeError):\n    y = 1", True),
        ("except TypeError as e:\n    if strict:\n        raise\n    y = 1", True),
        ("except TypeError:\n    raise", False),
        ("except RuntimeError:\n    y = 1", False),
        ("except:\n    y = 1", False),
    ],
)
def test_which_handlers_take_over_from_the_refusal(handler: str, handles: bool) -> None:
    statement = ast.parse(f"try:\n    y = 0\n{handler}\n").body[0]
    assert isinstance(statement, ast.Try)
    assert catches_dtype_refusal(statement.handlers[0]) is handles


# orb-models 0.5.5 orb_models/forcefield/pretrained.py (orb_v2_architecture's end, trimmed).
ORB = """\
import torch


def place(model, device=None):
    device = get_device(device)
    if device is not None and device != torch.device("cpu"):
        model.cuda(device)
    else:
        model = model.cpu()
    return model
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_set_and_not_cpu_test_guards_no_cuda_call(tmp_path: Path, target: str) -> None:
    # mps is also a ported path here (the module names no 'mps'), so the finding raises the verdict.
    report = audit_files(tmp_path, {"orb_models/forcefield/pretrained.py": ORB}, target)
    moved = [f for f in report.findings if f.location == "orb_models/forcefield/pretrained.py:7"]
    assert [(f.rule, f.risk) for f in moved] == [("hardcoded-cuda-device", "moderate")]


@pytest.mark.parametrize(
    "test",
    [
        'device is not None and device.type == "cuda"',  # a CUDA test: the body runs on CUDA only
        "device is not None and torch.cuda.is_available()",
    ],
)
def test_a_set_and_cuda_test_still_guards(tmp_path: Path, test: str) -> None:
    source = ORB.replace('device is not None and device != torch.device("cpu")', test)
    report = audit_files(tmp_path, {"orb_models/forcefield/pretrained.py": source}, "xpu")
    assert "hardcoded-cuda-device" not in raised(report)
