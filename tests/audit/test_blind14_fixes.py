"""Fixes from blind round 14 (#22), each on an excerpt of the real project that showed it:

- Intel Gaudi's PyTorch bridge (``habana_frameworks``) is an HPU device backend in the knowledge table:
  imported unguarded at module level it binds the module to Gaudi (optimum-habana 1.17.0
  transformers/models/llama/modeling_llama.py); inside a function or a guard it is the HPU path of a
  multi-device project, as IPEX's is for XPU;
- such an import outweighs a ``torch.version.hip`` branch elsewhere: the module does not import on ROCm
  (optimum-habana 1.17.0 transformers/training_args.py, a codecarbon switch copied from Transformers);
- plain CUDA sources of a CUDAExtension do not add up to "several kernels to port" on ROCm, where
  torch.utils.cpp_extension hipifies them at build (torch-points-kernels 0.7.0, seven .cu files); loose
  sources with no torch extension build still do (blind round 11's twin).
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.conftest import audit_files, raised

# optimum-habana 1.17.0 optimum/habana/transformers/models/llama/modeling_llama.py (imports, trimmed).
HABANA_LLAMA = """\
import torch

try:
    from habana_frameworks.torch.hpex.kernels import FusedSDPA
except ImportError:
    print("Not using HPU fused scaled dot-product attention kernel.")
    FusedSDPA = None

import habana_frameworks.torch.core as htcore


def gaudi_llama_rmsnorm_forward(self, hidden_states):
    htcore.mark_step()
    return hidden_states * torch.rsqrt(hidden_states.pow(2).mean(-1, keepdim=True) + 1e-6)
"""

# The HPU path of a multi-device project: the bridge imported only in a function (Accelerate/
# sentence-transformers style).
HPU_IN_A_FUNCTION = """\
import torch


def is_hpu_available():
    import habana_frameworks.torch.core as htcore

    return htcore is not None


def gaudi_llama_rmsnorm_forward(self, hidden_states):
    return hidden_states * torch.rsqrt(hidden_states.pow(2).mean(-1, keepdim=True) + 1e-6)
"""

# optimum-habana 1.17.0 optimum/habana/transformers/training_args.py (__post_init__, trimmed).
HABANA_ARGS = """\
import torch


class GaudiTrainingArguments:
    def __post_init__(self):
        if self.report_to == "all":
            from transformers.integrations import get_available_reporting_integrations

            self.report_to = get_available_reporting_integrations()
            if "codecarbon" in self.report_to and torch.version.hip:
                self.report_to.remove("codecarbon")
"""

# torch-points-kernels 0.7.0 setup.py (trimmed) and one kernel of cuda/src/interpolate_gpu.cu (trimmed).
TPK_SETUP = """\
import glob
import os

import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension

WITH_CUDA = torch.cuda.is_available() and CUDA_HOME is not None
if os.getenv("FORCE_CUDA", "0") == "1":
    WITH_CUDA = True

ext_modules = []
if WITH_CUDA:
    ext_modules.append(
        CUDAExtension(
            name="torch_points_kernels.points_cuda",
            sources=glob.glob("cuda/src/*.cpp") + glob.glob("cuda/src/*.cu"),
            include_dirs=["cuda/include"],
        )
    )
ext_modules.append(CppExtension(name="torch_points_kernels.points_cpu", sources=glob.glob("cpu/src/*.cpp")))
setup(name="torch-points-kernels", ext_modules=ext_modules, cmdclass={"build_ext": BuildExtension})
"""
TPK_KERNEL = """\
#include <math.h>
#include <stdio.h>

__global__ void NAME_kernel(int b, int n, int m, const float* __restrict__ unknown,
                            const float* __restrict__ known, float* __restrict__ dist2)
{
    int batch_index = blockIdx.x;
    unknown += batch_index * n * 3;
    int index = threadIdx.x;
    int stride = blockDim.x;
    for (int j = index; j < n; j += stride)
    {
        float d = unknown[j * 3] - known[0];
        dist2[j] = d * d;
    }
}

void NAME_kernel_wrapper(int b, int n, int m, const float* unknown, const float* known, float* dist2)
{
    cudaStream_t stream = 0;
    NAME_kernel<<<b, 256, 0, stream>>>(b, n, m, unknown, known, dist2);
}
"""
# A device helper in inline PTX (warp lane id), the kind of code hipify cannot map.
PTX_LANE = """
__device__ unsigned lane_id()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}
"""
TPK_NAMES = ("three_nn", "ball_query", "furthest_point_sampling", "gridding")


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_gaudis_bridge_imported_unguarded_binds_the_module_to_gaudi(tmp_path: Path, target: str) -> None:
    path = "optimum/habana/transformers/models/llama/modeling_llama.py"
    result = audit_files(tmp_path, {path: HABANA_LLAMA}, target)
    bridge = [f for f in result.findings if f.rule == "cuda-only-import" and "Gaudi" in f.meaning]
    assert [f.risk for f in bridge] == ["higher", "lower"]  # the unguarded import, then the guarded one
    assert result.verdict.risk == "higher"
    # Twin: the bridge imported only inside a function is the HPU path of a multi-device project.
    other = audit_files(tmp_path / "function", {path: HPU_IN_A_FUNCTION}, target)
    assert raised(other) == set()
    assert any("Intel Gaudi (HPU) backend" in f.meaning for f in other.findings)
    assert other.verdict.risk == "lower"


def test_an_unimportable_module_outweighs_a_rocm_branch(tmp_path: Path) -> None:
    files = {
        "optimum/habana/transformers/training_args.py": HABANA_ARGS,
        "optimum/habana/transformers/models/llama/modeling_llama.py": HABANA_LLAMA,
    }
    result = audit_files(tmp_path, files, "rocm:gfx942")
    assert result.verdict.supported  # the torch.version.hip branch is still read as a path
    assert result.verdict.risk == "higher"
    assert "an import it needs has no build there" in result.verdict.reasons[0]
    # Twin: with the bridge only in a function, the branch is the project's ROCm path as before.
    twin = {**files, "optimum/habana/transformers/models/llama/modeling_llama.py": HPU_IN_A_FUNCTION}
    other = audit_files(tmp_path / "function", twin, "rocm:gfx942")
    assert other.verdict.supported
    assert other.verdict.risk == "lower"
    assert "an import it needs" not in other.verdict.reasons[0]


def _tpk(extra: str = "") -> dict[str, str]:
    files = {"setup.py": TPK_SETUP}
    for name in TPK_NAMES:
        files[f"cuda/src/{name}_gpu.cu"] = TPK_KERNEL.replace("NAME", name) + extra
    return files


def test_plain_cuda_sources_are_one_hipified_build_on_rocm(tmp_path: Path) -> None:
    result = audit_files(tmp_path, _tpk(), "rocm:gfx942")
    sources = [f for f in result.findings if f.rule == "cuda-source"]
    assert len(sources) == len(TPK_NAMES)
    assert {f.risk for f in sources} == {"moderate"}
    assert result.verdict.risk == "moderate"
    assert not any("kernels or compiled packages" in r for r in result.verdict.reasons)
    # Twins: the same kernels as loose sources (no torch extension builds them) are kernels to port; on
    # XPU they have no compiler (each is higher); and on ROCm a kernel that hipify cannot map (inline
    # PTX) is still higher on its own.
    loose = {k: v for k, v in _tpk().items() if k != "setup.py"}
    by_hand = audit_files(tmp_path / "loose", loose, "rocm:gfx942")
    assert by_hand.verdict.risk == "higher"
    assert f"{len(TPK_NAMES)} CUDA-only kernels" in by_hand.verdict.reasons[0]
    xpu = audit_files(tmp_path / "xpu", _tpk(), "xpu")
    assert xpu.verdict.risk == "higher"
    inline = audit_files(tmp_path / "ptx", _tpk(PTX_LANE), "rocm:gfx942")
    assert inline.verdict.risk == "higher"
