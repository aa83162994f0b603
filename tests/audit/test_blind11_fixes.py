"""Fixes from blind round 11 (#22), each on an excerpt of the real project that showed it:

- another device's member of a per-device layout (vLLM 0.11 ``platforms/rocm.py`` beside
  ``platforms/xpu.py``) runs only on that device, as the CUDA member (``platforms/cuda.py``) already did;
- PyTorch3D's layout of CPU twins, ``knn.cu`` beside ``knn_cpu.cpp`` (chamferdist 1.0.3): the op runs on
  CPU tensors off NVIDIA/AMD, a device move rather than a rewrite;
- a CUDA header with no kernel, launch or API call of its own (chamferdist's ``dispatch.cuh``) is built
  with the sources that include it: not one more kernel to port on ROCm;
- a test of the NCCL backend (``backend == "nccl"``, ``Backend.NCCL``) is a device test, and an
  ``"nccl"`` default (argparse, a parameter, a table of run options, a class setting) is a setting the
  user changes (SpeechBrain 1.0 core.py, utils/distributed.py);
- a guarded import of a CUDA-only package the project's requirements never name (SpeechBrain's Numba
  transducer loss) is an opt-in, one step below a guarded import of a package the project installs.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit.scanners.python import scan_python
from tests.audit.conftest import audit_files, raised

# vLLM 0.11.0 vllm/platforms/rocm.py (on_mi3xx and the class settings, trimmed) and platforms/xpu.py.
VLLM_ROCM = """\
from functools import cache

import torch

from .interface import Platform, PlatformEnum


@cache
def on_mi3xx() -> bool:
    GPU_ARCH = torch.cuda.get_device_properties("cuda").gcnArchName
    return any(arch in GPU_ARCH for arch in ["gfx942", "gfx950"])


class RocmPlatform(Platform):
    _enum = PlatformEnum.ROCM
    device_name: str = "rocm"
    device_type: str = "cuda"
    dist_backend: str = "nccl"

    @classmethod
    def get_device_total_memory(cls, device_id: int = 0) -> int:
        device_props = torch.cuda.get_device_properties(device_id)
        return device_props.total_memory
"""
VLLM_XPU = """\
import torch

from .interface import Platform, PlatformEnum


class XPUPlatform(Platform):
    _enum = PlatformEnum.XPU
    device_name: str = "xpu"
    device_type: str = "xpu"
    dist_backend: str = "ccl"  # ccl | xccl

    @classmethod
    def get_device_total_memory(cls, device_id: int = 0) -> int:
        device_props = torch.xpu.get_device_properties(device_id)
        return device_props.total_memory
"""


def test_another_devices_member_runs_only_there(tmp_path: Path) -> None:
    files = {"vllm/platforms/rocm.py": VLLM_ROCM, "vllm/platforms/xpu.py": VLLM_XPU}
    result = audit_files(tmp_path, files, "xpu")
    assert "torch-cuda-api" not in raised(result)
    members = [f for f in result.findings if f.rule == "torch-cuda-api"]
    assert members
    assert all("In the project's ROCm backend" in f.meaning for f in members)
    assert result.verdict.risk == "lower"
    # Twin: without its own XPU member the project has no path there; the ROCm member is the work.
    alone = audit_files(tmp_path / "alone", {"vllm/platforms/rocm.py": VLLM_ROCM}, "xpu")
    assert "torch-cuda-api" in raised(alone)
    # Twin: the same calls in a module that is no member of the layout run on every device.
    shared = dict(files)
    shared["vllm/worker/memory.py"] = VLLM_ROCM
    assert "torch-cuda-api" in raised(audit_files(tmp_path / "shared", shared, "xpu"))


# chamferdist 1.0.3 chamferdist/knn.cu (a kernel and its launch, trimmed), knn_cpu.cpp (trimmed) and
# dispatch.cuh (PyTorch3D's dispatch macros, trimmed).
KNN_CU = """\
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include "dispatch.cuh"

template <typename scalar_t>
__global__ void KNearestNeighborKernelV0(const scalar_t* __restrict__ points1, int64_t* __restrict__ idxs,
                                         const size_t N, const size_t P1) {
  const int64_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < N * P1) { idxs[tid] = tid; }
}

void KNearestNeighborIdxCuda(const at::Tensor& p1, at::Tensor& idxs) {
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  KNearestNeighborKernelV0<float><<<256, 256, 0, stream>>>(
      p1.data_ptr<float>(), idxs.data_ptr<int64_t>(), 1, 1);
  AT_CUDA_CHECK(cudaGetLastError());
}
"""
KNN_CPU = """\
#include <torch/extension.h>

std::tuple<at::Tensor, at::Tensor> KNearestNeighborIdxCpu(const at::Tensor& p1, const at::Tensor& p2, int K) {
  auto idxs = torch::full({p1.size(0), p1.size(1), K}, 0, p1.options().dtype(torch::kInt64));
  return std::make_tuple(idxs, idxs);
}
"""
DISPATCH_CUH = """\
// Copyright (c) Facebook, Inc. and its affiliates.
#pragma once
#include <ATen/cuda/CUDAContext.h>

template <template <typename, int64_t> class Kernel, typename T, int64_t minN, int64_t maxN,
          int64_t curN, typename... Args>
struct DispatchKernelHelper1D {
  static void run(const int64_t N, Args... args) {
    if (curN == N) { Kernel<T, curN>::run(args...); }
  }
};
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_cpu_kernel_under_the_same_stem_is_a_cpu_twin(tmp_path: Path, target: str) -> None:
    files = {"chamferdist/knn.cu": KNN_CU, "chamferdist/knn_cpu.cpp": KNN_CPU}
    result = audit_files(tmp_path, files, target)
    assert "cuda-source" not in raised(result)
    assert "cuda-kernel-cpu-twin" in raised(result)
    assert result.verdict.risk == "moderate"
    # Twin: the same kernel with no CPU kernel beside it has no path on the target.
    alone = audit_files(tmp_path / "alone", {"chamferdist/knn.cu": KNN_CU}, target)
    assert "cuda-source" in raised(alone)
    assert alone.verdict.risk == "higher"


def test_a_header_with_no_kernel_is_not_one_more_kernel(tmp_path: Path) -> None:
    files = {
        "chamferdist/knn.cu": KNN_CU,
        "chamferdist/dispatch.cuh": DISPATCH_CUH,
        "chamferdist/index_utils.cuh": DISPATCH_CUH.replace("DispatchKernelHelper1D", "IndexHelper"),
    }
    result = audit_files(tmp_path, files, "rocm:gfx942")
    sources = {f.location.split(":")[0]: f for f in result.findings if f.rule == "cuda-source"}
    assert set(sources) == set(files)
    assert sources["chamferdist/dispatch.cuh"].effort == "low"
    assert "No kernel of its own" in sources["chamferdist/dispatch.cuh"].meaning
    assert sources["chamferdist/knn.cu"].effort == "medium"
    assert result.verdict.risk == "moderate"
    # Twin: three sources that each launch kernels are three kernels to port and validate.
    kernels = {f"chamferdist/knn{i}.cu": KNN_CU for i in range(3)}
    several = audit_files(tmp_path / "several", kernels, "rocm:gfx942")
    assert several.verdict.risk == "higher"
    assert "3 CUDA-only kernels" in several.verdict.reasons[0]


# SpeechBrain 1.0.3 speechbrain/utils/distributed.py (ddp_barrier and ddp_init_group, trimmed).
SB_DISTRIBUTED = """\
import torch


def ddp_barrier():
    if torch.distributed.get_backend() == torch.distributed.Backend.NCCL:
        torch.distributed.barrier(device_ids=[torch.cuda.current_device()])
    else:
        torch.distributed.barrier()


def ddp_init_group(run_opts, local_rank):
    if run_opts["distributed_backend"] == "nccl":
        device = torch.device(f"cuda:{local_rank}")
        torch.cuda.set_device(device)
    torch.distributed.init_process_group(backend=run_opts["distributed_backend"])
"""
# SpeechBrain 1.0.3 speechbrain/core.py (run_opt_defaults and the argparse option, trimmed).
SB_CORE = """\
import argparse

run_opt_defaults = {
    "device": "cpu",
    "distributed_backend": "nccl",
}


def parse_arguments(arg_list=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--distributed_backend", type=str, default="nccl", help="One of {nccl, gloo, mpi}")
    return parser.parse_args(arg_list)
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_an_nccl_test_guards_what_it_wraps(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"speechbrain/utils/distributed.py": SB_DISTRIBUTED}, target)
    assert "torch-cuda-api" not in raised(result)
    assert result.verdict.risk == "lower"
    # Twin: the same CUDA calls with no NCCL test around them run on every device.
    bare = SB_DISTRIBUTED.replace('if run_opts["distributed_backend"] == "nccl":', "if local_rank >= 0:")
    assert "torch-cuda-api" in raised(audit_files(tmp_path / "bare", {"d.py": bare}, target))


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_an_nccl_default_is_a_setting(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"speechbrain/core.py": SB_CORE}, target)
    found = [f for f in result.findings if f.rule == "nccl-backend"]
    assert len(found) == 2
    assert {f.risk for f in found} == {"lower"}
    assert all("A setting that defaults to the 'nccl' backend" in f.meaning for f in found)
    # Twin: the literal passed to init_process_group is the choice itself (the cuda_cudnn fixture's shape).
    direct = "import torch.distributed as dist\n\n\ndef main():\n    dist.init_process_group('nccl')\n"
    assert "nccl-backend" in raised(audit_files(tmp_path / "direct", {"t.py": direct}, target))


def test_nccl_defaults_and_tests_are_read_as_such() -> None:
    signals = [s for s in scan_python("core.py", SB_CORE) if s.kind == "nccl-backend"]
    read = [(s.line, s.guarded, "setting=1" in s.detail) for s in signals]
    assert read == [(5, True, True), (11, True, True)]
    # Twin: a function that returns "nccl" unguarded picks the backend (test_blind_fixes' NCCL_PICK).
    pick = 'def backend():\n    return "nccl"\n'
    picked = [(s.guarded, s.detail) for s in scan_python("p.py", pick) if s.kind == "nccl-backend"]
    assert picked == [(False, ())]


# SpeechBrain 1.0.3 setup.py (install_requires, trimmed) and speechbrain/nnet/loss/transducer_loss.py
# (the guarded Numba import, trimmed).
SB_SETUP = """\
import setuptools

setuptools.setup(
    name="speechbrain",
    install_requires=["hyperpyyaml", "numpy", "torch>=1.9", "torchaudio"],
)
"""
SB_TRANSDUCER = """\
import torch

try:
    from numba import cuda
except ImportError:
    err_msg = "The optional dependency Numba is needed to use this module"
    raise ImportError(err_msg)


@cuda.jit()
def cu_kernel_forward(log_probs, labels, alpha, log_p, T, U, blank, lock):
    b = cuda.blockIdx.x
"""


@pytest.mark.parametrize(("target", "risk"), [("xpu", "lower"), ("rocm:gfx942", "lower")])
def test_a_guarded_import_the_requirements_never_name(tmp_path: Path, target: str, risk: str) -> None:
    files = {"setup.py": SB_SETUP, "speechbrain/nnet/loss/transducer_loss.py": SB_TRANSDUCER}
    result = audit_files(tmp_path, files, target)
    found = [f for f in result.findings if f.rule == "cuda-only-import"]
    assert found
    assert found[0].risk == risk
    assert "requirements do not name it" in found[0].meaning
    # Twin: the project declares numba: the guarded import is a path it installs (one step lower only).
    declared = dict(files)
    declared["setup.py"] = SB_SETUP.replace('"torchaudio"]', '"torchaudio", "numba"]')
    twin = [
        f
        for f in audit_files(tmp_path / "declared", declared, target).findings
        if f.rule == "cuda-only-import"
    ]
    assert twin
    assert "requirements do not name it" not in twin[0].meaning
    if target == "xpu":
        assert twin[0].risk == "moderate"
    # Twin: a tree with no requirements at all says nothing of what it installs.
    bare = audit_files(tmp_path / "bare", {"loss.py": SB_TRANSDUCER}, target)
    plain = next(f for f in bare.findings if f.rule == "cuda-only-import")
    assert "requirements do not name it" not in plain.meaning
