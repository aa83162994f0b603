"""Fixes from blind round 8 (#22), each on an excerpt of the real project that showed it:

- ``except torch.cuda.OutOfMemoryError`` (FastChat 0.2.36 model_worker.py) names a class every torch
  build has, the same as ``torch.OutOfMemoryError`` that XPU and MPS raise: not a CUDA-only call;
- ``for gpu_id in range(num_gpus)`` with ``num_gpus = torch.cuda.device_count()`` (FastChat utils.py) runs
  once per CUDA device, none off CUDA;
- ``if world_size == 1: return`` (demucs 4.0.1 distrib.py) leaves the 'cuda' collective buffers behind it to
  multi-process runs;
- an unguarded ``torch.cuda.amp.autocast`` (k-diffusion 0.1.1 evaluation.py) disables itself off CUDA and runs
  as written in float32 (lower, like the guarded case of round 6);
- a CUDA-only package declared only in an optional extra (FastChat: flash-attn in ``train``) makes its
  importing module that feature's: the import and the module's other CUDA calls are lower.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.conftest import audit_files, raised

TARGETS = ["xpu", "mps"]

# FastChat 0.2.36 fastchat/serve/model_worker.py (generate_stream_gate, trimmed).
FASTCHAT_OOM = """\
import json
import torch


def generate_stream_gate(self, params):
    try:
        for output in self.generate_stream_func(self.model, self.tokenizer, params, self.device):
            yield json.dumps(output).encode() + b"\\0"
    except torch.cuda.OutOfMemoryError as e:
        ret = {"text": f"({e})", "error_code": 50002}
        yield json.dumps(ret).encode() + b"\\0"
"""

# FastChat 0.2.36 fastchat/utils.py get_gpu_memory.
FASTCHAT_GPU_MEMORY = """\
def get_gpu_memory(max_gpus=None):
    \"\"\"Get available memory for each GPU.\"\"\"
    import torch

    gpu_memory = []
    num_gpus = (
        torch.cuda.device_count()
        if max_gpus is None
        else min(max_gpus, torch.cuda.device_count())
    )

    for gpu_id in range(num_gpus):
        with torch.cuda.device(gpu_id):
            device = torch.cuda.current_device()
            gpu_properties = torch.cuda.get_device_properties(device)
            total_memory = gpu_properties.total_memory / (1024**3)
            allocated_memory = torch.cuda.memory_allocated() / (1024**3)
            available_memory = total_memory - allocated_memory
            gpu_memory.append(available_memory)
    return gpu_memory
"""

# demucs 4.0.1 demucs/distrib.py (average, wrap).
DEMUCS_DISTRIB = """\
import torch
from torch.nn.parallel.distributed import DistributedDataParallel

rank = 0
world_size = 1


def average(metrics, count=1.):
    if isinstance(metrics, dict):
        keys, values = zip(*sorted(metrics.items()))
        values = average(values, count)
        return dict(zip(keys, values))
    if world_size == 1:
        return metrics
    tensor = torch.tensor(list(metrics) + [1], device='cuda', dtype=torch.float32)
    tensor *= count
    torch.distributed.all_reduce(tensor, op=torch.distributed.ReduceOp.SUM)
    return (tensor[:-1] / tensor[-1]).cpu().numpy().tolist()


def wrap(model):
    if world_size == 1:
        return model
    else:
        return DistributedDataParallel(
            model,
            device_ids=[torch.cuda.current_device()],
            output_device=torch.cuda.current_device())
"""

# k-diffusion 0.1.1.post1 k_diffusion/evaluation.py (InceptionV3FeatureExtractor.forward, trimmed).
KDIFFUSION_AMP = """\
import torch
from torch.nn import functional as F


def forward(self, x):
    x = F.interpolate(x, self.size, mode='bicubic', align_corners=False, antialias=True)
    with torch.cuda.amp.autocast(dtype=torch.float16):
        x = self.model(x).float()
    return x
"""

# FastChat 0.2.36: pyproject.toml extras and fastchat/train/llama_flash_attn_monkey_patch.py (trimmed).
FASTCHAT_PYPROJECT = """\
[project]
name = "fschat"
version = "0.2.36"
dependencies = ["aiohttp", "fastapi", "numpy", "requests"]

[project.optional-dependencies]
model_worker = ["accelerate>=0.21", "peft", "sentencepiece", "torch", "transformers>=4.31.0", "protobuf"]
train = ["einops", "flash-attn>=2.0", "wandb"]
"""
FASTCHAT_FLASH_PATCH = """\
import warnings

import torch
import transformers

from flash_attn.flash_attn_interface import flash_attn_varlen_qkvpacked_func
from flash_attn.bert_padding import unpad_input, pad_input


def replace_llama_attn_with_flash_attn():
    cuda_major, cuda_minor = torch.cuda.get_device_capability()
    if cuda_major < 8:
        warnings.warn("Flash attention is only supported on A100 or H100 GPU during training")
"""


@pytest.mark.parametrize("target", TARGETS)
def test_catching_cuda_oom_is_not_a_cuda_call(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"fastchat/serve/model_worker.py": FASTCHAT_OOM}, target)
    assert "torch-cuda-api" not in raised(result)
    assert result.verdict.risk == "lower"
    # Twin: a CUDA call that does raise off CUDA stays a blocker.
    twin = FASTCHAT_OOM.replace("torch.cuda.OutOfMemoryError as e:", "torch.cuda.CudaError as e:")
    twin = twin.replace("    try:\n", "    torch.cuda.synchronize()\n    try:\n")
    assert "torch-cuda-api" in raised(audit_files(tmp_path / "b", {"w.py": twin}, target))


@pytest.mark.parametrize("target", TARGETS)
def test_a_loop_over_cuda_devices_runs_no_pass_off_cuda(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"fastchat/utils.py": FASTCHAT_GPU_MEMORY}, target)
    assert "torch-cuda-api" not in raised(result)
    assert result.verdict.risk == "lower"
    # Twin: a loop over something else keeps its CUDA calls.
    twin = FASTCHAT_GPU_MEMORY.replace("for gpu_id in range(num_gpus):", "for gpu_id in range(3):")
    assert "torch-cuda-api" in raised(audit_files(tmp_path / "b", {"u.py": twin}, target))


@pytest.mark.parametrize("target", TARGETS)
def test_code_after_a_single_process_return_is_multi_process_only(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"demucs/distrib.py": DEMUCS_DISTRIB}, target)
    assert raised(result) == set()
    assert result.verdict.risk == "lower"
    # Twin: without the world-size return the 'cuda' buffer is built on every run.
    twin = DEMUCS_DISTRIB.replace("    if world_size == 1:\n        return metrics\n", "")
    assert "hardcoded-cuda-device" in raised(audit_files(tmp_path / "b", {"d.py": twin}, target))


@pytest.mark.parametrize("target", TARGETS)
def test_unguarded_cuda_autocast_runs_as_written_off_cuda(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"k_diffusion/evaluation.py": KDIFFUSION_AMP}, target)
    amp = [f for f in result.findings if f.rule == "cuda-amp"]
    assert amp
    assert {f.risk for f in amp} == {"lower"}
    assert "float32 as written" in amp[0].meaning
    # Twin: the CUDA GradScaler (float16 training without loss scaling can underflow) stays moderate.
    scaler = "import torch\n\nscaler = torch.cuda.amp.GradScaler()\nscaler.scale(loss).backward()\n"
    assert "cuda-grad-scaler" in raised(audit_files(tmp_path / "b", {"t.py": scaler}, target))


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_a_module_of_an_extra_only_package_is_that_features(tmp_path: Path, target: str) -> None:
    files = {
        "pyproject.toml": FASTCHAT_PYPROJECT,
        "fastchat/train/llama_flash_attn_monkey_patch.py": FASTCHAT_FLASH_PATCH,
    }
    result = audit_files(tmp_path, files, target)
    assert raised(result) == set()
    assert result.verdict.risk == "lower"
    imports = [f for f in result.findings if f.rule == "cuda-only-import"]
    assert imports
    assert all("optional extra" in f.meaning for f in imports)
    # Twin: the same package in the core dependencies keeps the import (and the module's CUDA call) raised.
    core = FASTCHAT_PYPROJECT.replace('"numpy", "requests"]', '"numpy", "requests", "flash-attn>=2.0"]')
    twin = audit_files(tmp_path / "b", {**files, "pyproject.toml": core}, target)
    assert "cuda-only-import" in raised(twin)
    if target != "rocm:gfx942":
        assert "torch-cuda-api" in raised(twin)
