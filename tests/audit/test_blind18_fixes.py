"""Fixes from blind round 18 (#22), each on an excerpt of the real project that showed it:

- MindSpore is a framework with Ascend, NVIDIA GPU and CPU builds only (mindcv 0.3.0): on AMD, Intel and
  Apple GPUs a MindSpore project runs on the CPU, and the GPU needs its models on another framework;
- Triton compiles a kernel when it is launched, only the code that launch reaches, after resolving its
  ``tl.constexpr`` arguments (gemlite 0.6.0.post2): inline PTX under an off-by-default constexpr switch, or
  in a ``@triton.jit`` helper nothing in the project names, is never built;
- nothing hipifies a Triton kernel, so its inline PTX in a project whose ROCm evidence is a runtime switch
  (``IS_HIP``) is a path that stays CUDA-only, not a ROCm build that breaks.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit.model import AuditReport
from tests.audit.conftest import audit_files, raised

# mindcv 0.3.0 mindcv/loss/cross_entropy_smooth.py (trimmed).
MINDCV_LOSS = """\
from mindspore import nn
from mindspore.ops import functional as F


class CrossEntropySmooth(nn.LossBase):
    def __init__(self, smoothing=0.0, aux_factor=0.0, reduction="mean", weight=None):
        super().__init__()
        self.smoothing = smoothing
        self.reduction = reduction

    def construct(self, logits, labels):
        return F.cross_entropy(logits, labels, label_smoothing=self.smoothing, reduction=self.reduction)
"""
# A PyTorch training script beside it (the project drives PyTorch devices itself).
TORCH_TRAIN = """\
import torch


def train(model):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    return model.to(device)
"""


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_a_mindspore_project_has_no_build_on_these_gpus(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"mindcv/loss/cross_entropy_smooth.py": MINDCV_LOSS}, target)
    assert "framework-import" in raised(result)
    assert result.verdict.risk == "higher"
    assert any("MindSpore" in f.meaning for f in result.findings if f.rule == "framework-import")


def test_a_mindspore_project_runs_on_the_cpu(tmp_path: Path) -> None:
    # Twin: the CPU build exists.
    result = audit_files(tmp_path, {"mindcv/loss/cross_entropy_smooth.py": MINDCV_LOSS}, "cpu")
    assert result.verdict.risk == "lower"


def test_mindspore_beside_pytorch_is_not_the_only_path(tmp_path: Path) -> None:
    # Twin: in a project that also drives PyTorch devices, the PyTorch path runs on the GPU.
    files = {"pkg/ms_loss.py": MINDCV_LOSS, "pkg/train.py": TORCH_TRAIN}
    result = audit_files(tmp_path, files, "rocm:gfx942")
    assert result.verdict.risk == "lower"


# gemlite 0.6.0.post2 quant_utils.py (trimmed): the opt-in PTX FP4 pack of scale_activations_mxfp4 v5.
def _kernel(default: str, annotation: str = "tl.constexpr") -> str:
    return f"""\
import triton
import triton.language as tl

GEMLITE_ENABLE_PTX_FP4_PACK = False  # Enable with CUDA13+ ptxas


def set_ptx_fp4_pack_flag(enabled: bool):
    global GEMLITE_ENABLE_PTX_FP4_PACK
    GEMLITE_ENABLE_PTX_FP4_PACK = enabled


@triton.jit
def scale_activations_mxfp4_triton_kernel_v5(
    tensor_ptr, out_ptr, K,
    BLOCK_SIZE_K: tl.constexpr,
    ptx_pack: {annotation} = {default},
):
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    wq = tl.load(tensor_ptr + offs_k, mask=offs_k < K, other=0.0)
    if ptx_pack:
        packed = tl.inline_asm_elementwise(
            asm="cvt.rn.satfinite.e2m1x2.f16x2 $0, $1;",
            constraints="=r,r",
            args=[wq],
            dtype=tl.int32,
            is_pure=True,
            pack=1,
        )
    else:
        packed = wq.to(tl.int32)
    tl.store(out_ptr + offs_k, packed, mask=offs_k < K)


def scale_activations_mxfp4_triton_v5(tensor, out):
    scale_activations_mxfp4_triton_kernel_v5[(1,)](tensor, out, tensor.numel(), BLOCK_SIZE_K=128)
    return out
"""


@pytest.mark.parametrize("default", ["False", "GEMLITE_ENABLE_PTX_FP4_PACK"])
def test_ptx_under_an_off_constexpr_switch_is_never_built(tmp_path: Path, default: str) -> None:
    result = audit_files(tmp_path, {"gemlite/quant_utils.py": _kernel(default)}, "xpu")
    ptx = [f for f in result.findings if f.rule == "inline-ptx"]
    assert ptx
    assert all(f.risk == "lower" for f in ptx)
    assert "constexpr switch that is off by default" in ptx[0].meaning


@pytest.mark.parametrize(
    ("default", "annotation"),
    [
        ("True", "tl.constexpr"),  # twin: on by default, every launch compiles it
        ("False", "bool"),  # twin: a runtime argument; Triton compiles both branches of its `if`
    ],
)
def test_ptx_under_a_switch_triton_compiles_stays_higher(
    tmp_path: Path, default: str, annotation: str
) -> None:
    result = audit_files(tmp_path, {"gemlite/quant_utils.py": _kernel(default, annotation)}, "xpu")
    ptx = [f for f in result.findings if f.rule == "inline-ptx"]
    assert ptx
    assert ptx[0].risk == "higher"
    assert result.verdict.risk == "higher"


# gemlite 0.6.0.post2 quant_utils.py (trimmed): next_power_of_2_ptx_triton, which nothing calls, beside
# the portable helper the kernels call.
HELPERS = """\
import triton
import triton.language as tl


@triton.jit
def next_power_of_2_log_triton(val, eps_exp: tl.constexpr):
    exp = tl.ceil(tl.log2(val)).to(tl.int32)
    return exp


@triton.jit
def next_power_of_2_ptx_triton(val, eps_exp: tl.constexpr):
    scales, biased_exp = tl.inline_asm_elementwise(
        "lg2.approx.f32 $0, $2;",
        "=f,=r,f",
        [val],
        dtype=(tl.float32, tl.int32),
        is_pure=True,
        pack=1,
    )
    return scales, biased_exp


next_power_of_2_triton = next_power_of_2_log_triton
"""
CALLER = """\
import triton
import triton.language as tl

from gemlite.quant_utils import next_power_of_2_ptx_triton


@triton.jit
def scale_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    scales, _ = next_power_of_2_ptx_triton(x, 0)
    tl.store(x_ptr + tl.arange(0, BLOCK), scales)
"""


def test_ptx_in_a_triton_helper_nothing_calls_is_never_built(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"gemlite/quant_utils.py": HELPERS}, "xpu")
    ptx = [f for f in result.findings if f.rule == "inline-ptx"]
    assert ptx
    assert ptx[0].risk == "lower"
    assert "next_power_of_2_ptx_triton, which nothing in the project calls" in ptx[0].meaning
    assert result.verdict.risk != "higher"


def test_ptx_in_a_triton_helper_another_module_calls_stays_higher(tmp_path: Path) -> None:
    # Twin: a kernel in another file imports and calls the helper, so its launch compiles the PTX.
    files = {"gemlite/quant_utils.py": HELPERS, "gemlite/kernels.py": CALLER}
    result = audit_files(tmp_path, files, "xpu")
    ptx = [f for f in result.findings if f.rule == "inline-ptx" and f.location.startswith("gemlite/quant")]
    assert ptx
    assert ptx[0].risk == "higher"
    assert result.verdict.risk == "higher"


# gemlite 0.6.0.post2 triton_kernels/utils.py and a kernel module (trimmed): the ROCm evidence is Triton's
# active backend at run time, and a launched kernel uses inline PTX.
UTILS = """\
import triton


def is_hip():
    return triton.runtime.driver.active.get_current_target().backend == "hip"


IS_HIP = is_hip()
"""
LAUNCHED = """\
import triton
import triton.language as tl

from .utils import IS_HIP


@triton.jit
def round_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("cvt.rni.f32.f32 $0, $1;", "=f,f", [x], dtype=tl.float32, is_pure=True,
                                  pack=1)
    tl.store(x_ptr + tl.arange(0, BLOCK), y)


def round_(x):
    num_stages = 1 if IS_HIP else 2
    round_kernel[(1,)](x, BLOCK=128, num_stages=num_stages)
    return x
"""
# gsplat-like twin: setup.py's ROCm switch hipifies a .cu source holding inline PTX.
SETUP_HIP = """\
import torch
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

define_macros = []
if torch.version.hip:
    define_macros.append(("USE_ROCM", None))

setup(
    name="kern",
    ext_modules=[CUDAExtension("kern._C", ["csrc/round.cu"], define_macros=define_macros)],
    cmdclass={"build_ext": BuildExtension},
)
"""
ROUND_CU = """\
__global__ void round_kernel(float* x) {
    float y;
    asm volatile("cvt.rni.f32.f32 %0, %1;" : "=f"(y) : "f"(x[threadIdx.x]));
    x[threadIdx.x] = y;
}
"""


def _rocm(root: Path, files: dict[str, str]) -> AuditReport:
    return audit_files(root, files, "rocm:gfx942")


def test_triton_ptx_beside_a_runtime_rocm_switch_stays_cuda_only(tmp_path: Path) -> None:
    result = _rocm(tmp_path, {"kern/utils.py": UTILS, "kern/round.py": LAUNCHED})
    rules = {f.rule for f in result.findings}
    assert "breaks-rocm-build" not in rules
    assert "stays-cuda-only" in rules
    assert result.verdict.risk != "higher"


def test_cuda_ptx_under_a_rocm_build_switch_still_breaks_that_build(tmp_path: Path) -> None:
    # Twin: the ROCm build hipifies the .cu as written, PTX and all (gsplat, #22 blind round 4).
    result = _rocm(tmp_path, {"setup.py": SETUP_HIP, "csrc/round.cu": ROUND_CU})
    assert "breaks-rocm-build" in raised(result)
    assert result.verdict.risk == "higher"
