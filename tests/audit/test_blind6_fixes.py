"""Fixes from blind round 6 (#22), each on an excerpt of the real project that showed it:

- a project's own ROCm macro (faiss's ``USE_AMD_ROCM``, set by CMake's ``FAISS_ENABLE_ROCM``) marks a ROCm
  branch: the inline PTX in its ``#else`` is what the ROCm build leaves out (faiss GPU);
- an auto device selection that enumerates accelerators (cuda, mps, cpu) without the target's device is a
  closed set: on XPU it falls back to the CPU until edited (F5-TTS, bark); a plain cuda-or-cpu default is not;
- CUDA autocast behind a ``torch.cuda.is_available()`` check is the project's own branch, no blocker (bark);
- Lightning has no XPU accelerator (moderate there), runs on ROCm PyTorch and MPS (lightning-hydra-template);
- a ``FROM nvidia/cuda`` image is no blocker on Apple silicon, where the project runs natively (rembg);
- a general follow-up (the ONNX Runtime deployments the round was about, not a miss): a providers list naming
  only NVIDIA's execution providers falls back to the CPU elsewhere (moderate), ``get_available_providers()``
  does not, and a list naming the target's provider is a path there; the CUDA member of a per-device layout
  (vLLM's platforms/cuda.py beside platforms/xpu.py) is lower where the target has its own member.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit.scanners.preproc import branches
from envsnap.audit.scanners.python import scan_python
from tests.audit.conftest import audit_files

# facebookresearch/faiss faiss/gpu/utils/PtxUtils.cuh (the version with the ROCm branch), trimmed to one
# function per branch.
FAISS_PTX = """\
#pragma once

#include <cuda.h>
#ifdef USE_AMD_ROCM
#include <device_functions.h>
#endif

namespace faiss {
namespace gpu {

#ifdef USE_AMD_ROCM

__device__ __forceinline__ int getLaneId() {
    return ::__lane_id();
}

#else // USE_AMD_ROCM

__device__ __forceinline__ int getLaneId() {
    int laneId;
    asm("mov.u32 %0, %%laneid;" : "=r"(laneId));
    return laneId;
}

#endif // USE_AMD_ROCM

} // namespace gpu
} // namespace faiss
"""


def test_a_projects_own_rocm_macro_is_a_rocm_branch() -> None:
    lines = FAISS_PTX.splitlines()
    state = branches(FAISS_PTX)
    assert state.rocm_switches == 2
    assert state.at(lines.index("    return ::__lane_id();") + 1) == "rocm-only"
    assert state.at(lines.index('    asm("mov.u32 %0, %%laneid;" : "=r"(laneId));') + 1) == "not-rocm"


def test_inline_ptx_in_the_non_rocm_branch_does_not_block_rocm(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"faiss/gpu/utils/PtxUtils.cuh": FAISS_PTX}, "rocm:gfx942")
    assert result.verdict.risk == "lower"
    assert result.verdict.supported
    # The twin: the same PTX with no ROCm branch is still a rewrite on ROCm.
    bare = FAISS_PTX.replace("USE_AMD_ROCM", "FAISS_SOMETHING")
    assert audit_files(tmp_path / "b", {"PtxUtils.cuh": bare}, "rocm:gfx942").verdict.risk == "higher"
    # Off AMD the PTX stays what it is.
    assert audit_files(tmp_path / "c", {"PtxUtils.cuh": FAISS_PTX}, "xpu").verdict.risk == "higher"


@pytest.mark.parametrize(
    ("name", "rocm"),
    [("USE_AMD_ROCM", True), ("FAISS_ENABLE_ROCM", True), ("WITH_ROCM", True), ("DISABLE_ROCM", False)],
)
def test_which_macro_names_are_rocm_switches(name: str, rocm: bool) -> None:
    code = f"#ifdef {name}\nint a;\n#endif\n"
    assert (branches(code).rocm_switches == 1) is rocm


# SWivid/F5-TTS src/f5_tts/infer/utils_infer.py @ b7a1746 (the module-level device).
F5_DEVICE = """\
import torch

device = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"


def load_checkpoint(model, ckpt_path, device, use_ema=True):
    if device == "cuda":
        model = model.half()
    return model.to(device)
"""

# suno-ai/bark bark/generation.py @ 035d08e (_grab_best_device).
BARK_DEVICE = """\
import os

import torch

GLOBAL_ENABLE_MPS = os.environ.get("SUNO_ENABLE_MPS", False)


def _grab_best_device(use_gpu=True):
    if torch.cuda.device_count() > 0 and use_gpu:
        device = "cuda"
    elif torch.backends.mps.is_available() and use_gpu and GLOBAL_ENABLE_MPS:
        device = "mps"
    else:
        device = "cpu"
    return device
"""


@pytest.mark.parametrize("code", [F5_DEVICE, BARK_DEVICE], ids=["f5-ifexp", "bark-elif"])
def test_a_selection_over_accelerators_without_xpu_is_moderate_there(tmp_path: Path, code: str) -> None:
    found = [s for s in scan_python("m.py", code) if s.kind == "device-choices"]
    assert [s.facts()["devices"] for s in found] == ["cuda,mps,cpu"]
    result = audit_files(tmp_path, {"m.py": code}, "xpu")
    assert result.verdict.risk == "moderate"
    assert "falls back to the CPU" in next(f for f in result.findings if f.rule == "device-choices").meaning
    # mps is in the selection, and ROCm's device is 'cuda'.
    assert audit_files(tmp_path / "mps", {"m.py": code}, "mps").verdict.risk == "lower"
    assert audit_files(tmp_path / "rocm", {"m.py": code}, "rocm:gfx942").verdict.risk == "lower"


@pytest.mark.parametrize(
    "code",
    [
        # whisper/minGPT: a CUDA default any device passes through.
        'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n',
        # one that knows XPU already.
        'import torch\ndevice = "cuda" if torch.cuda.is_available() else "xpu" if torch.xpu.is_available() '
        'else "mps" if torch.backends.mps.is_available() else "cpu"\n',
        # not a device selection: the branches are modes.
        'import torch\nmode = "fast" if torch.cuda.is_available() else "slow"\n',
    ],
)
def test_other_selections_are_no_finding_on_xpu(tmp_path: Path, code: str) -> None:
    result = audit_files(tmp_path, {"m.py": code}, "xpu")
    assert "device-choices" not in {f.rule for f in result.findings}
    assert result.verdict.risk == "lower"


def test_a_user_setting_before_the_auto_selection_keeps_it_open() -> None:
    # InvokeAI's choose_torch_device: the configured device comes first, the auto chain is its fallback.
    code = BARK_DEVICE.replace(
        "    if torch.cuda.device_count() > 0 and use_gpu:",
        '    if config.device != "auto":\n        device = config.device\n'
        "    elif torch.cuda.device_count() > 0 and use_gpu:",
    )
    assert not [s for s in scan_python("m.py", code) if s.kind == "device-choices"]


# suno-ai/bark bark/generation.py @ 035d08e (the autocast choice at import time).
BARK_AUTOCAST = """\
import contextlib

import funcy
import torch

if (
    torch.cuda.is_available() and
    hasattr(torch.cuda, "amp") and
    hasattr(torch.cuda.amp, "autocast") and
    hasattr(torch.cuda, "is_bf16_supported") and
    torch.cuda.is_bf16_supported()
):
    autocast = funcy.partial(torch.cuda.amp.autocast, dtype=torch.bfloat16)
else:
    @contextlib.contextmanager
    def autocast():
        yield
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_cuda_autocast_behind_a_cuda_check_is_lower(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"bark/generation.py": BARK_AUTOCAST}, target)
    amp = [f for f in result.findings if f.rule == "cuda-amp"]
    assert amp
    assert {f.risk for f in amp} == {"lower"}
    assert result.verdict.risk == "lower"
    # The twin: the same autocast used unconditionally disables itself there and the code runs as
    # written in float32; blind round 8 (k-diffusion) rates that lower too (test_blind8_fixes.py).
    bare = "import torch\n\nwith torch.cuda.amp.autocast(dtype=torch.bfloat16):\n    pass\n"
    amp = [f for f in audit_files(tmp_path / "b", {"m.py": bare}, target).findings if f.rule == "cuda-amp"]
    assert amp
    assert "disables itself" in amp[0].meaning


# ashleve/lightning-hydra-template src/models/mnist_module.py @ 763e98d (imports and the class head).
LIGHTNING_MODULE = """\
from typing import Any, Dict, Tuple

import torch
from lightning import LightningModule
from torchmetrics import MaxMetric, MeanMetric


class MNISTLitModule(LightningModule):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)
"""


@pytest.mark.parametrize(
    ("target", "risk"), [("xpu", "moderate"), ("mps", "lower"), ("rocm:gfx942", "lower"), ("cpu", "lower")]
)
def test_lightning_follows_its_accelerator_registry(tmp_path: Path, target: str, risk: str) -> None:
    result = audit_files(tmp_path, {"src/models/mnist_module.py": LIGHTNING_MODULE}, target)
    assert result.verdict.risk == risk
    found = [f for f in result.findings if f.rule == "framework-import"]
    assert found
    assert (found[0].source or "").startswith(("https://lightning.ai/", "https://github.com/Lightning-AI/"))


def test_lightning_in_a_torch_device_project_still_counts_on_xpu(tmp_path: Path) -> None:
    # Unlike JAX beside PyTorch, Lightning is the PyTorch path: torch.cuda code beside it does not lower it.
    files = {
        "src/models/mnist_module.py": LIGHTNING_MODULE,
        "src/utils.py": "import torch\n\nif torch.cuda.is_available():\n    torch.cuda.empty_cache()\n",
    }
    assert audit_files(tmp_path, files, "xpu").verdict.risk == "moderate"
    # A project that names the XPU device itself (a custom accelerator) has the path Lightning lacks.
    xpu = "import torch\n\ndef is_available():\n    return torch.xpu.is_available()\n"
    files["src/xpu_accelerator.py"] = xpu
    assert audit_files(tmp_path / "b", files, "xpu").verdict.risk == "lower"


def test_a_lightning_requirement_alone_installs_on_xpu(tmp_path: Path) -> None:
    # Lightning installs everywhere; the code that trains with it decides (InvokeAI 4.x lists
    # pytorch-lightning in its dependencies without a Trainer in its device path).
    result = audit_files(tmp_path, {"requirements.txt": "lightning>=2.0.0\ntorchmetrics\n"}, "xpu")
    assert result.verdict.risk == "lower"
    found = [f for f in result.findings if f.rule == "framework-requirement"]
    assert [f.risk for f in found] == ["lower"]
    files = {"requirements.txt": "lightning>=2.0.0\n", "src/models/mnist_module.py": LIGHTNING_MODULE}
    assert audit_files(tmp_path / "b", files, "xpu").verdict.risk == "moderate"


# danielgatis/rembg Dockerfile_nvidia_cuda_cudnn_gpu @ 41abd0e.
REMBG_DOCKERFILE = """\
FROM nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04

WORKDIR /rembg

COPY . .

RUN python -m pip install ".[gpu,cli]" --break-system-packages
"""


@pytest.mark.parametrize(
    ("target", "risk"), [("mps", "lower"), ("cpu", "lower"), ("rocm:gfx942", "moderate")]
)
def test_a_cuda_base_image_is_no_blocker_where_the_project_runs_natively(
    tmp_path: Path, target: str, risk: str
) -> None:
    result = audit_files(tmp_path, {"Dockerfile_nvidia_cuda_cudnn_gpu": REMBG_DOCKERFILE}, target)
    image = [f for f in result.findings if f.rule == "cuda-base-image"]
    assert [f.risk for f in image] == [risk]
    assert result.verdict.risk == risk


# The ONNX Runtime docs' execution-provider example (microsoft/onnxruntime, "Use Execution Providers").
ORT_EXAMPLE = """\
import onnxruntime as rt

#define the priority order for the execution providers
# prefer CUDA Execution Provider over CPU Execution Provider
EP_list = ['CUDAExecutionProvider', 'CPUExecutionProvider']

# initialize the model.onnx
sess = rt.InferenceSession("model.onnx", providers=EP_list)
"""

# danielgatis/rembg rembg/sessions/base.py @ 747ef5e (the provider choice).
REMBG_PROVIDERS = """\
import onnxruntime as ort


class BaseSession:
    def __init__(self, model_name, sess_opts, providers=None, *args, **kwargs):
        self.providers = []

        _providers = ort.get_available_providers()
        if providers:
            for provider in providers:
                if provider in _providers:
                    self.providers.append(provider)
        else:
            self.providers.extend(_providers)
"""


@pytest.mark.parametrize(
    ("target", "risk"),
    [("rocm:gfx942", "moderate"), ("xpu", "moderate"), ("mps", "moderate"), ("cpu", "lower")],
)
def test_a_cuda_only_onnx_runtime_provider_list_falls_back_to_the_cpu(
    tmp_path: Path, target: str, risk: str
) -> None:
    result = audit_files(tmp_path, {"infer.py": ORT_EXAMPLE}, target)
    assert result.verdict.risk == risk
    found = [f for f in result.findings if f.rule == "ort-cuda-provider"]
    assert [f.risk for f in found] == [risk]
    assert found[0].source == "https://onnxruntime.ai/docs/execution-providers/"
    # The twin: a session that takes whatever providers the installed build has needs no edit.
    assert audit_files(tmp_path / "b", {"base.py": REMBG_PROVIDERS}, target).verdict.risk == "lower"


def test_a_provider_list_that_names_the_targets_provider_is_lower_there(tmp_path: Path) -> None:
    code = ORT_EXAMPLE.replace(
        "['CUDAExecutionProvider',", "['MIGraphXExecutionProvider', 'CUDAExecutionProvider',"
    )
    result = audit_files(tmp_path, {"infer.py": code}, "rocm:gfx942")
    assert result.verdict.risk == "lower"
    assert any("MIGraphXExecutionProvider" in line for line in result.verdict.supported)
    assert audit_files(tmp_path / "x", {"infer.py": code}, "xpu").verdict.risk == "moderate"


# The early-return form of the same selection (diffusers-style get_device helpers).
RETURNS_DEVICE = """\
import torch


def get_device():
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
"""


def test_an_early_return_selection_is_the_same_closed_set(tmp_path: Path) -> None:
    found = [s for s in scan_python("m.py", RETURNS_DEVICE) if s.kind == "device-choices"]
    assert [s.facts()["devices"] for s in found] == ["cuda,mps,cpu"]
    assert audit_files(tmp_path, {"m.py": RETURNS_DEVICE}, "xpu").verdict.risk == "moderate"
    assert audit_files(tmp_path / "mps", {"m.py": RETURNS_DEVICE}, "mps").verdict.risk == "lower"
    # The twin: a CUDA-or-CPU helper passes any device through.
    plain = RETURNS_DEVICE.replace(
        '    if torch.backends.mps.is_available():\n        return torch.device("mps")\n', ""
    )
    assert not [s for s in scan_python("m.py", plain) if s.kind == "device-choices"]


# A constructed CMake fragment of the shape CUDA libraries with an optional HIP build use (k2's
# -DK2_WITH_HIP=ON -DCMAKE_HIP_ARCHITECTURES=..., alpaka's -DCMAKE_HIP_ARCHITECTURES=gfx90a).
CMAKE_OPTIONAL_HIP = """\
cmake_minimum_required(VERSION 3.21)
project(mylib LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
if(MYLIB_WITH_HIP)
  set(CMAKE_HIP_ARCHITECTURES gfx90a gfx942)
endif()
add_library(mylib src/kernels.cu)
"""


def test_cmake_hip_architectures_is_a_rocm_build_switch(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"CMakeLists.txt": CMAKE_OPTIONAL_HIP}, "rocm:gfx942")
    assert any("CMAKE_HIP_ARCHITECTURES" in line for line in result.verdict.supported)
    # The twin: without the HIP architectures the same build is CUDA-only.
    cuda_only = CMAKE_OPTIONAL_HIP.replace("  set(CMAKE_HIP_ARCHITECTURES gfx90a gfx942)\n", "")
    assert not audit_files(tmp_path / "b", {"CMakeLists.txt": cuda_only}, "rocm:gfx942").verdict.supported


# vllm-project/vllm vllm/platforms/cuda.py @ 002db49 (the CudaPlatformBase head and two methods) and
# vllm/platforms/xpu.py @ 3103622 (the XPUPlatform head and two methods).
VLLM_CUDA = """\
import torch

from .interface import DeviceCapability, Platform, PlatformEnum


class CudaPlatformBase(Platform):
    _enum = PlatformEnum.CUDA
    device_name: str = "cuda"
    device_type: str = "cuda"
    dispatch_key: str = "CUDA"
    ray_device_key: str = "GPU"
    dist_backend: str = "nccl"
    device_control_env_var: str = "CUDA_VISIBLE_DEVICES"

    @classmethod
    def set_device(cls, device: torch.device) -> None:
        torch.cuda.set_device(device)
        _ = torch.zeros(1, device=device)

    @classmethod
    def get_current_memory_usage(
        cls, device: torch.types.Device | None = None
    ) -> float:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
        return torch.cuda.max_memory_allocated(device)
"""

VLLM_XPU = """\
import torch

from .interface import DeviceCapability, Platform, PlatformEnum, _Backend


class XPUPlatform(Platform):
    _enum = PlatformEnum.XPU
    device_name: str = "xpu"
    device_type: str = "xpu"
    dispatch_key: str = "XPU"

    @staticmethod
    def get_device_name(device_id: int = 0) -> str:
        return torch.xpu.get_device_name(device_id)

    @classmethod
    def get_current_memory_usage(cls, device=None) -> float:
        torch.xpu.reset_peak_memory_stats(device)
        return torch.xpu.max_memory_allocated(device)
"""


def test_the_cuda_member_of_a_per_device_layout_is_lower_where_the_target_has_its_own(tmp_path: Path) -> None:
    files = {"vllm/platforms/cuda.py": VLLM_CUDA, "vllm/platforms/xpu.py": VLLM_XPU}
    result = audit_files(tmp_path, files, "xpu")
    assert result.verdict.risk == "lower"
    cuda_calls = [f for f in result.findings if f.rule == "torch-cuda-api"]
    assert cuda_calls
    assert {f.risk for f in cuda_calls} == {"lower"}
    # max_memory_allocated answers 0 off CUDA (READS_EMPTY); the calls that would raise are the member's.
    assert all("CUDA backend" in f.meaning for f in cuda_calls if "max_memory_allocated" not in f.code)
    assert any("CUDA backend" in f.meaning for f in cuda_calls)
    # The twin: with no MPS member the same CUDA platform raises on MPS.
    assert audit_files(tmp_path / "mps", files, "mps").verdict.risk == "moderate"
    # And a lone cuda.py (no member for the target) is judged as it stands.
    assert (
        audit_files(tmp_path / "alone", {"vllm/platforms/cuda.py": VLLM_CUDA}, "xpu").verdict.risk
        == "moderate"
    )


F5_SELECTION = F5_DEVICE.splitlines()[2][len("device = ") :]


@pytest.mark.parametrize(
    "code",
    [
        # The user's value comes first (a CLI flag, then the auto selection).
        f"import torch\n\ndef main(args):\n    device = args.device or ({F5_SELECTION})\n",
        # A parameter the caller sets, filled in only when left out.
        f"import torch\n\ndef load(device=None):\n    if device is None:\n        device = {F5_SELECTION}\n",
    ],
    ids=["or-default", "parameter-default"],
)
def test_an_auto_selection_behind_the_callers_value_is_no_closed_set(code: str) -> None:
    assert "torch.backends.mps.is_available()" in code
    assert not [s for s in scan_python("m.py", code) if s.kind == "device-choices"]
