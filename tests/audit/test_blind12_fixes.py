"""Fixes from blind round 12 (#22), each on an excerpt of the real project that showed it:

- a file's port evidence is kept once per reason, not once per target: nerfacc 0.5.3's setup.py filters
  paths on ``"hip"`` (a device name, weak) before ``if torch.version.hip:`` (its ROCm build switch), and
  the first alone hid the second;
- a project whose CUDA kernels are built just in time and whose custom ops also have a device-generic
  torch implementation (``torch.library.impl(op, "default")``, optimum-quanto 0.2.7) runs on a device
  without those kernels: they, and the CUDA member's loader that picks their arch, are fast paths there;
- ``.double()`` of a tensor made by ``torch.from_numpy`` (pytorch-tabnet 4.1's sampler weights) stays on
  the CPU, where float64 works.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit.scanners.python import scan_python
from tests.audit.conftest import audit_files, raised

# nerfacc 0.5.3 setup.py (get_extensions, trimmed) and a kernel of nerfacc/cuda/csrc/grid.cu (trimmed).
NERFACC_SETUP = """\
import glob
import os.path as osp

from setuptools import setup


def get_extensions():
    import torch
    from torch.utils.cpp_extension import CUDAExtension

    extensions_dir = osp.join("nerfacc", "cuda", "csrc")
    sources = glob.glob(osp.join(extensions_dir, "*.cu"))
    # remove generated 'hip' files, in case of rebuilds
    sources = [path for path in sources if "hip" not in path]
    define_macros = []
    undef_macros = []
    nvcc_flags = ["-O3"]
    if torch.version.hip:
        # USE_ROCM was added to later versions of PyTorch.
        define_macros += [("USE_ROCM", None)]
        undef_macros += ["__HIP_NO_HALF_CONVERSIONS__"]
    else:
        nvcc_flags += ["--expt-relaxed-constexpr"]
    return [CUDAExtension("nerfacc.csrc", sources, define_macros=define_macros, undef_macros=undef_macros)]


setup(name="nerfacc", ext_modules=get_extensions())
"""
GRID_CU = """\
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void ray_aabb_intersect_kernel(const int N, const float* rays_o, float* t_mins) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < N) { t_mins[tid] = rays_o[tid]; }
}

void ray_aabb_intersect(const at::Tensor rays_o, at::Tensor t_mins) {
  int n = rays_o.size(0);
  ray_aabb_intersect_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      n, rays_o.data_ptr<float>(), t_mins.data_ptr<float>());
}
"""


def test_a_build_switch_after_a_device_name_still_counts() -> None:
    ports = [s for s in scan_python("setup.py", NERFACC_SETUP) if s.kind == "port"]
    reasons = {s.facts()["reason"] for s in ports}
    assert reasons == {"names the 'hip' device", "branches on torch.version.hip"}
    # Twin: the same reason twice in a file is one fact, kept once.
    twice = NERFACC_SETUP.replace('"--expt-relaxed-constexpr"', "str(torch.version.hip)")
    assert len([s for s in scan_python("setup.py", twice) if s.kind == "port"]) == 2


def test_a_rocm_build_switch_in_setup_py_builds_the_plain_kernels(tmp_path: Path) -> None:
    files = {"setup.py": NERFACC_SETUP, "nerfacc/cuda/csrc/grid.cu": GRID_CU}
    result = audit_files(tmp_path, files, "rocm:gfx942")
    assert "cuda-source" not in raised(result)
    assert result.verdict.risk == "lower"
    # Twin: without the `if torch.version.hip:` branch only the path filter names HIP (weak evidence):
    # the kernels are a hipify build nobody documented, a finding again; the path named for HIP still
    # sets the verdict (verdict.decide, measured), the kernels listed to check.
    bare = NERFACC_SETUP.replace("if torch.version.hip:", "if False:")
    alone = audit_files(tmp_path / "bare", {**files, "setup.py": bare}, "rocm:gfx942")
    assert "cuda-source" in raised(alone)
    assert alone.verdict.reasons[0].startswith("has a code path on ROCm")
    assert any(line.startswith("to check on ROCm: cuda-source") for line in alone.verdict.reasons)
    assert alone.verdict.risk == "lower"


# optimum-quanto 0.2.7: library/unpack.py (trimmed), library/extensions/__init__.py, extension.py's load
# (trimmed), extensions/cuda/__init__.py (trimmed) and a kernel of extensions/cuda/unpack.cu (trimmed).
QUANTO_UNPACK = """\
import torch

torch.library.define("quanto::unpack", "(Tensor self, int bits) -> Tensor")


@torch.library.impl("quanto::unpack", "default")
def unpack(packed: torch.Tensor, bits: int) -> torch.Tensor:
    unpacked = []
    for i in range(8 // bits):
        mask = 2 ** (bits * (i + 1)) - 1
        unpacked.append((packed & mask) >> (bits * i))
    return torch.cat(unpacked).to(torch.uint8)
"""
QUANTO_EXTENSIONS = """\
import platform

import torch

if torch.cuda.is_available() and platform.system() == "Linux":
    if torch.version.cuda:
        from .cuda import *
"""
QUANTO_EXTENSION = """\
from torch.utils.cpp_extension import load


class Extension:
    def __init__(self, name, root_dir, sources, extra_cuda_cflags=None):
        self.name, self.root_dir, self.sources = name, root_dir, sources
        self.extra_cuda_cflags = extra_cuda_cflags

    @property
    def lib(self):
        return load(
            name=self.name,
            sources=[f"{self.root_dir}/{source}" for source in self.sources],
            extra_cuda_cflags=self.extra_cuda_cflags,
        )
"""
QUANTO_CUDA_INIT = """\
import os

import torch

from ..extension import Extension

supported_sm = [int(arch.split("_")[1]) for arch in torch.cuda.get_arch_list() if "sm_" in arch]
ext = Extension("quanto_cuda", root_dir=os.path.dirname(__file__), sources=["unpack.cu"])


@torch.library.impl("quanto::unpack", ["CUDA"])
def unpack_cuda(t: torch.Tensor, bits: int):
    return ext.lib.unpack(t, bits)
"""
UNPACK_CU = """\
#include <torch/extension.h>

__global__ void unpack_4bit_kernel(const unsigned char* in, unsigned char* out, const int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i] = in[i] & 0x0F; }
}

torch::Tensor unpack(torch::Tensor t, int bits) {
  auto out = torch::empty_like(t);
  const int n = t.numel();
  unpack_4bit_kernel<<<(n + 255) / 256, 256>>>(t.data_ptr<unsigned char>(), out.data_ptr<unsigned char>(), n);
  return out;
}
"""
QUANTO = {
    "optimum/quanto/library/unpack.py": QUANTO_UNPACK,
    "optimum/quanto/library/extensions/__init__.py": QUANTO_EXTENSIONS,
    "optimum/quanto/library/extensions/extension.py": QUANTO_EXTENSION,
    "optimum/quanto/library/extensions/cuda/__init__.py": QUANTO_CUDA_INIT,
    "optimum/quanto/library/extensions/cuda/unpack.cu": UNPACK_CU,
}


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_jit_kernels_of_ops_with_a_generic_torch_implementation(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, QUANTO, target)
    assert raised(result) == set()
    kernel = next(f for f in result.findings if f.location.endswith("unpack.cu:1"))
    assert "device-generic torch implementation" in kernel.meaning
    assert result.verdict.risk == "lower"
    # Twin: registered for CUDA only (no "default" implementation), the kernel is the op's only path.
    cuda_only = {**QUANTO, QUANTO_UNPACK_PATH: QUANTO_UNPACK.replace('"default"', '"CUDA"')}
    alone = audit_files(tmp_path / "cuda-only", cuda_only, target)
    assert "cuda-source" in raised(alone)
    assert "torch-cuda-api" in raised(alone)
    assert alone.verdict.risk == "higher"


QUANTO_UNPACK_PATH = "optimum/quanto/library/unpack.py"


def test_the_generic_registration_is_read_by_its_dispatch_key() -> None:
    subjects = [s.subject for s in scan_python("u.py", QUANTO_UNPACK) if s.kind == "generic-op"]
    assert subjects == ["quanto::unpack"]
    composite = QUANTO_UNPACK.replace('"default"', '["CompositeExplicitAutograd"]')
    assert [s.subject for s in scan_python("u.py", composite) if s.kind == "generic-op"] == ["quanto::unpack"]
    custom = (
        "import torch\n\n"
        '@torch.library.custom_op("mylib::op", mutates_args=())\n'
        "def op(x: torch.Tensor) -> torch.Tensor:\n"
        "    return x\n"
    )
    assert [s.subject for s in scan_python("c.py", custom) if s.kind == "generic-op"] == ["mylib::op"]
    # Twins: a device key, or a custom_op limited to device types, is no generic implementation.
    assert not [
        s for s in scan_python("u.py", QUANTO_UNPACK.replace('"default"', '"CPU"')) if s.kind == "generic-op"
    ]
    limited = custom.replace("mutates_args=()", 'mutates_args=(), device_types="cuda"')
    assert not [s for s in scan_python("c.py", limited) if s.kind == "generic-op"]


def test_on_cuda_the_jit_kernels_count_as_they_are(tmp_path: Path) -> None:
    # Twin of the fallback: on NVIDIA the CUDA path is the one that runs, so nothing is waved through.
    result = audit_files(tmp_path, QUANTO, "cuda:sm_90")
    fallbacks = [f for f in result.findings if "device-generic torch implementation" in f.meaning]
    assert fallbacks == []


# pytorch-tabnet 4.1.0 pytorch_tabnet/utils.py create_sampler (trimmed).
TABNET_SAMPLER = """\
import numpy as np
import torch
from torch.utils.data import WeightedRandomSampler


def create_sampler(weights, y_train):
    class_sample_count = np.array([len(np.where(y_train == t)[0]) for t in np.unique(y_train)])
    weights = 1.0 / class_sample_count
    samples_weight = np.array([weights[t] for t in y_train])
    samples_weight = torch.from_numpy(samples_weight)
    samples_weight = samples_weight.double()
    sampler = WeightedRandomSampler(samples_weight, len(samples_weight))
    return sampler
"""


def test_double_of_a_host_tensor_stays_on_the_cpu(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"pytorch_tabnet/utils.py": TABNET_SAMPLER}, "mps")
    assert "float64-on-mps" not in raised(result)
    assert [f.rule for f in result.findings] == ["float64-on-host"]
    assert result.verdict.risk == "lower"
    # Twin: moved to the device first, the float64 tensor lives on MPS.
    moved = TABNET_SAMPLER.replace(
        "torch.from_numpy(samples_weight)", "torch.from_numpy(samples_weight).to('mps')"
    )
    assert "float64-on-mps" in raised(audit_files(tmp_path / "moved", {"u.py": moved}, "mps"))
    # Twin: `.double()` of a tensor the function did not make from host memory (a model's output).
    model = "def project(x, y):\n    x, y = x.double(), y.double()\n    return x * y\n"
    assert "float64-on-mps" in raised(audit_files(tmp_path / "model", {"m.py": model}, "mps"))
