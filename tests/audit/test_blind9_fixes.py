"""Fixes from blind round 9 (#22), each on an excerpt of the real project that showed it:

- a CUDA GradScaler behind a device-type branch (sentence-transformers 6.2 fit_mixin) runs only on CUDA:
  lower, like a guarded autocast;
- ``def cuda(self, device=None): super().cuda(device=device)`` (sentence-transformers base/model.py) is
  the module's override of ``nn.Module.cuda``: it forwards the caller's choice, it does not make one;
- a ``try`` whose narrow handler comes before a broad one that logs (unsloth 2026.3 models/_utils.py)
  swallows every error: its CUDA calls have a way around them;
- a helper of a long module (parsed in parts) that only guarded code calls (unsloth kernels/fp8.py
  ``test_has_fbgemm``) is guarded, as in a short module;
- a self-test in a library module (unsloth kernels/layernorm.py ``test_layernorm``), called only by
  other self-tests, never runs in the library;
- ``CUDA = torch.device("cuda")`` at module level (GPTQModel 7.7 models/_const.py) is a constant, like
  ``device = "cuda"``: building a torch.device touches no driver;
- a method that returns False unless its tensor is on CUDA (GPTQModel qlinear/torch.py
  ``_should_use_streaming``) guards what ``if self._should_use_streaming(x):`` runs, and a method every
  caller reaches only under a guard (``_forward_streaming`` with its CUDA streams, and the helper method
  only it calls) is guarded, in a long module too;
- native CUDA sources a project compiles only just in time (GPTQModel's ``cpp_extension.load``, no
  build-time extension) are its CUDA kernels' fast path, not part of its path for the target;
- TensorFlow (spleeter 2.4) and CTranslate2 (faster-whisper 1.2) are in the knowledge table: TensorFlow
  reaches AMD, Intel and Apple GPUs through another distribution or a plugin (moderate), CTranslate2 has
  a ROCm build (moderate) and no Intel or Apple GPU backend (higher); TensorFlow beside JAX is the input
  pipeline (big_vision).
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit import scan_tree
from envsnap.audit.across_files import JIT_ONLY
from envsnap.audit.scanners.python_chunks import CHUNK_MIN_LINES
from tests.audit.conftest import audit_files, raised

OFF_CUDA = ["xpu", "mps"]
ALL = ["rocm:gfx942", "xpu", "mps"]

# sentence-transformers 6.2.0 sentence_transformers/sentence_transformer/fit_mixin.py (fit, trimmed).
ST_FIT = """\
import torch
from transformers import is_torch_npu_available


def fit(self, use_amp=False):
    if use_amp:
        device_type = self.device.type
        if is_torch_npu_available():
            scaler = torch.npu.amp.GradScaler()
        elif device_type == "cuda":
            scaler = torch.cuda.amp.GradScaler()
        else:
            scaler = torch.amp.GradScaler(device_type)
    self.to(self.device)
"""

# sentence-transformers 6.2.0 sentence_transformers/base/model.py (BaseModel.cpu/cuda, trimmed).
ST_MODEL = """\
import torch
from torch import nn


class BaseModel(nn.Sequential):
    def cpu(self):
        \"\"\"Move the model to the CPU and override its saved device map.\"\"\"
        result = super().cpu()
        self._device_map = None
        return result

    def cuda(self, device=None):
        \"\"\"Move the model to a CUDA device and override its saved device map.\"\"\"
        result = super().cuda(device=device)
        self._device_map = None
        return result
"""

# unsloth 2026.3.4 unsloth/models/_utils.py (the xformers check, trimmed).
UNSLOTH_XFORMERS = """\
import torch

try:
    from xformers import __version__ as xformers_version

    major_version, minor_version = torch.cuda.get_device_capability()
    if f"{major_version}.{minor_version}" in ("10.0", "11.0", "12.0"):
        raise NotImplementedError("Unsloth: Xformers does not work in RTX 50X, Blackwell GPUs as of yet.")
    import xformers.ops.fmha as xformers

    xformers_attention = xformers.memory_efficient_attention
except ModuleNotFoundError:
    xformers = None
    xformers_attention = None
    xformers_version = None
except Exception as e:
    print("Switching to PyTorch attention since your Xformers is broken.")
    xformers = None
    xformers_attention = None
    xformers_version = None
"""

# unsloth 2026.3.4 unsloth/kernels/fp8.py (test_has_fbgemm and its one caller, trimmed); the real
# module is 624 lines, so it is parsed in parts: FILLER pads the excerpt past that size.
UNSLOTH_FP8 = """\
import os
import torch


def test_has_fbgemm():
    # We must manually check if the faster FBGEMM works on the specific GPU
    M, N, K = 128, 128, 128
    xq = torch.ones(M, K, dtype = torch.float8_e4m3fn, device = "cuda")
    block_scale = torch.ones(M // 128, K // 128, dtype = torch.float32, device = "cuda")
    has_fbgemm = False
    try:
        out = torch.ops.fbgemm.f8f8bf16_blockwise(xq, xq, block_scale, block_scale)
        has_fbgemm = True
        del out
    except Exception as e:
        has_fbgemm = False
    del block_scale, xq
    torch.cuda.empty_cache()
    return has_fbgemm


{filler}
try:
    import fbgemm_gpu

    from unsloth.import_fixes import suppress_cuda_printf

    with suppress_cuda_printf():
        _has_fbgemm = test_has_fbgemm()
    if _has_fbgemm:
        os.environ["UNSLOTH_HAS_FBGEMM"] = "1"
except:
    pass
"""
FILLER = "\n".join(f"BLOCK_{n} = {n}" for n in range(CHUNK_MIN_LINES))

# unsloth 2026.3.4 unsloth/kernels/layernorm.py (test_layernorm and testing_suite_layernorm, trimmed).
UNSLOTH_LAYERNORM = """\
import torch


def fast_layernorm(layernorm, X):
    return layernorm(X)


def test_layernorm(dim = 1024, eps = 1e-5, dtype = torch.float16, bsz = 21, seqlen = 3341):
    from torch.nn import LayerNorm

    layernorm = LayerNorm((dim,), eps = eps, device = "cuda", dtype = dtype)
    X = torch.randn((bsz, seqlen, dim), dtype = dtype, device = "cuda")
    Y = fast_layernorm(layernorm, X)
    return Y


def testing_suite_layernorm():
    for dim in [512, 1024, 2048]:
        for dtype in [torch.float16, torch.bfloat16]:
            test_layernorm(dim = dim, dtype = dtype)
"""

# GPTQModel 7.7.0 gptqmodel/models/_const.py (the device constants, trimmed).
GPTQ_CONST = """\
import torch
from torch import device

CPU = device("cpu")
META = device("meta")
CUDA = device("cuda")
CUDA_0 = device("cuda:0")
XPU = device("xpu")
MPS = device("mps")
ROCM = device("cuda:0")  # rocm maps to fake cuda
"""

# GPTQModel 7.7.0 gptqmodel/nn_modules/qlinear/torch.py (TorchLinear's streaming path, trimmed); PLAIN
# pads the class past the size at which only its members with a trigger token are parsed.
GPTQ_TORCH = """\
import torch


class TorchLinear(torch.nn.Module):
    def _forward(self, x, out_shape):
        if self._should_use_streaming(x):
            out = self._forward_streaming(x, out_shape)
        else:
            out = self._forward_eager(x, out_shape)
        return out

    def _forward_eager(self, x, out_shape):
        return x @ self.weight

    def _forward_streaming(self, x, out_shape):
        device = x.device
        compute_stream = torch.cuda.current_stream(device=device)
        stream_dequant = self._stream_get_dequant_stream(device)
        stream_dequant.wait_stream(compute_stream)
        consumed = torch.cuda.Event()
        consumed.record(compute_stream)
        return x @ self.weight

    def _stream_get_dequant_stream(self, device):
        stream = self._streams.get(device.index)
        if stream is None:
            stream = torch.cuda.Stream(device=device)
            self._streams[device.index] = stream
        return stream

    def _should_use_streaming(self, x):
        if not self._streaming_enabled:
            return False
        if self.bits not in (2, 4, 8):
            return False
        if x.device.type != "cuda":
            return False
        return x.shape[0] > 1
{plain}"""
PLAIN = "".join(f"\n    def plain_{n}(self, value):\n        return value + {n}\n" for n in range(150))

# GPTQModel 7.7.0: utils/cpp.py (the JIT loader, trimmed), utils/rocm.py, and a Marlin kernel header.
GPTQ_CPP = """\
from torch.utils.cpp_extension import load

from .rocm import IS_ROCM


def load_extension(name, sources, extra_cuda_cflags):
    if IS_ROCM:
        extra_cuda_cflags = [flag for flag in extra_cuda_cflags if not flag.startswith("--use_fast_math")]
    return load(name=name, sources=sources, extra_cuda_cflags=extra_cuda_cflags, verbose=False)
"""
GPTQ_ROCM = """\
import torch

IS_ROCM = torch.version.hip is not None
"""
GPTQ_MARLIN = """\
#pragma once
namespace marlin {
__device__ inline void cp_async4(void* smem_ptr, const void* glob_ptr) {
  const int BYTES = 16;
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(smem_ptr));
  asm volatile(
      "{\\n"
      "   cp.async.cg.shared.global [%0], [%1], %2;\\n"
      "}\\n" ::"r"(smem),
      "l"(glob_ptr), "n"(BYTES));
}
}  // namespace marlin
"""
GPTQ_KERNEL = """\
#include <cuda_runtime.h>

__global__ void dequant_kernel(const int* q, half* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __int2half_rn(q[i]);
}
"""
GPTQ_DEVICES = 'import torch\n\nDEVICES = {"cuda": "cuda", "xpu": "xpu", "mps": "mps"}\n'
SETUP_CUDA_EXTENSION = """\
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="kernels",
    ext_modules=[CUDAExtension("kernels_cuda", ["ext/kernels/dequant.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
"""

# spleeter 2.4.2: pyproject.toml (Poetry dependencies, trimmed) and spleeter/separator.py (trimmed).
SPLEETER_PYPROJECT = """\
[tool.poetry]
name = "spleeter"
version = "2.4.2"

[tool.poetry.dependencies]
python = ">=3.8,<3.12"
ffmpeg-python = "^0.2.0"
tensorflow = "2.12.1"
pandas = "^1.3.0"
"""
SPLEETER_SEPARATOR = """\
import tensorflow as tf


def create_estimator(params, MWF):
    session_config = tf.compat.v1.ConfigProto()
    session_config.gpu_options.per_process_gpu_memory_fraction = 0.7
    config = tf.estimator.RunConfig(session_config=session_config)
    return tf.estimator.Estimator(model_fn=lambda *a: None, params=params, config=config)
"""
# big_vision train.py (the JAX trainer that reads its data with tf.data, trimmed).
BIG_VISION_TRAIN = """\
import jax
import jax.numpy as jnp
import tensorflow as tf


def main(argv):
    tf.config.set_visible_devices([], "GPU")
    devices = jax.devices()
    return jnp.zeros((len(devices),))
"""

# faster-whisper 1.2.0: requirements.txt and faster_whisper/transcribe.py (WhisperModel.__init__, trimmed).
WHISPER_REQUIREMENTS = "ctranslate2>=4.0,<5\nhuggingface_hub>=0.13\ntokenizers>=0.13,<1\nav>=11\n"
WHISPER_TRANSCRIBE = """\
import ctranslate2


class WhisperModel:
    def __init__(self, model_size_or_path, device="auto", device_index=0, compute_type="default"):
        self.model = ctranslate2.models.Whisper(
            model_size_or_path,
            device=device,
            device_index=device_index,
            compute_type=compute_type,
        )
"""


@pytest.mark.parametrize("target", OFF_CUDA)
def test_a_grad_scaler_behind_a_device_branch_runs_only_on_cuda(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"st/fit_mixin.py": ST_FIT}, target)
    scaler = [f for f in result.findings if f.rule == "cuda-grad-scaler"]
    assert scaler
    assert {f.risk for f in scaler} == {"lower"}
    assert "other branch" in scaler[0].meaning
    assert result.verdict.risk == "lower"
    # Twin: the same scaler with no branch around it stays moderate.
    twin = "import torch\n\n\ndef fit(self):\n    scaler = torch.cuda.amp.GradScaler()\n    return scaler\n"
    assert "cuda-grad-scaler" in raised(audit_files(tmp_path / "b", {"f.py": twin}, target))


@pytest.mark.parametrize("target", OFF_CUDA)
def test_an_override_of_module_cuda_forwards_the_callers_choice(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"st/base/model.py": ST_MODEL}, target)
    assert "hardcoded-cuda-device" not in raised(result)
    assert result.verdict.risk == "lower"
    # Twins: super().cuda() in a method of another name, and .cuda() on a member in cuda(), both decide.
    for name, body in (
        ("to_gpu", "        return super().cuda()\n"),
        ("cuda", "        self.backbone.cuda()\n        return self\n"),
    ):
        twin = ST_MODEL + f"\n    def {name}(self):\n{body}"
        twin = twin.replace("    def cuda(self, device=None):", "    def _cuda(self, device=None):")
        assert "hardcoded-cuda-device" in raised(audit_files(tmp_path / name, {"m.py": twin}, target))


@pytest.mark.parametrize("target", OFF_CUDA)
def test_a_narrow_handler_before_a_broad_one_swallows_every_error(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"unsloth/models/_utils.py": UNSLOTH_XFORMERS}, target)
    assert "torch-cuda-api" not in raised(result)
    assert result.verdict.risk == "lower"
    # Twin: a handler that re-raises lets the CUDA failure out, so the call stays a blocker.
    twin = UNSLOTH_XFORMERS.replace(
        '    print("Switching to PyTorch attention since your Xformers is broken.")\n', "    raise\n"
    )
    assert "torch-cuda-api" in raised(audit_files(tmp_path / "b", {"u.py": twin}, target))


@pytest.mark.parametrize("target", OFF_CUDA)
def test_a_long_modules_helper_called_only_under_a_guard_is_guarded(tmp_path: Path, target: str) -> None:
    text = UNSLOTH_FP8.format(filler=FILLER)
    assert len(text.splitlines()) >= CHUNK_MIN_LINES  # parsed in parts, as the real module is
    result = audit_files(tmp_path, {"unsloth/kernels/fp8.py": text}, target)
    assert "hardcoded-cuda-device" not in raised(result)
    assert result.verdict.risk == "lower"
    # Twin: one more call outside any guard, and the helper's 'cuda' tensors run on every import.
    twin = text + "\nHAS_FBGEMM = test_has_fbgemm()\n"
    assert "hardcoded-cuda-device" in raised(audit_files(tmp_path / "b", {"f.py": twin}, target))


@pytest.mark.parametrize("target", OFF_CUDA)
def test_a_self_test_in_a_library_module_never_runs_there(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"unsloth/kernels/layernorm.py": UNSLOTH_LAYERNORM}, target)
    assert "hardcoded-cuda-device" not in raised(result)
    assert result.verdict.risk == "lower"
    scanned = scan_tree(str(tmp_path))
    assert any("self-test=1" in s.detail for s in scanned.signals)
    # Twin: the library calls the self-test itself (an import-time probe): its 'cuda' tensors count.
    twin = UNSLOTH_LAYERNORM + "\n\ndef warmup():\n    return test_layernorm(dim = 64)\n"
    assert "hardcoded-cuda-device" in raised(audit_files(tmp_path / "b", {"l.py": twin}, target))


@pytest.mark.parametrize("target", OFF_CUDA)
@pytest.mark.parametrize("plain", ["", PLAIN], ids=["short", "long"])
def test_a_method_behind_a_device_predicate_runs_only_there(tmp_path: Path, target: str, plain: str) -> None:
    text = GPTQ_TORCH.format(plain=plain)
    result = audit_files(tmp_path, {"gptqmodel/nn_modules/qlinear/torch.py": text}, target)
    assert "torch-cuda-api" not in raised(result)
    assert result.verdict.risk == "lower"
    # Twin: a predicate that can pass before its device test (`return True` first) guards nothing.
    early = text.replace(
        "        if not self._streaming_enabled:\n            return False\n",
        "        if self._force_streaming:\n            return True\n",
    )
    assert "torch-cuda-api" in raised(audit_files(tmp_path / "b", {"t.py": early}, target))
    # Twin: one more caller outside any guard, and the streams run on every device.
    direct = text.replace(
        "    def _forward_eager(self, x, out_shape):\n",
        "    def warmup(self, x):\n        return self._forward_streaming(x, x.shape)\n\n"
        "    def _forward_eager(self, x, out_shape):\n",
    )
    assert "torch-cuda-api" in raised(audit_files(tmp_path / "c", {"t.py": direct}, target))


@pytest.mark.parametrize("target", OFF_CUDA)
def test_a_module_level_torch_device_constant_is_a_setting(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"gptqmodel/models/_const.py": GPTQ_CONST}, target)
    assert "hardcoded-cuda-device" not in raised(result)
    assert result.verdict.risk == "lower"
    assert any(f.rule == "default-cuda-device" for f in result.findings)
    # Twin: the same torch.device used to allocate inside a function is a hard-coded device.
    twin = GPTQ_CONST + '\n\ndef workspace(n):\n    return torch.zeros(n, device=device("cuda"))\n'
    assert "hardcoded-cuda-device" in raised(audit_files(tmp_path / "b", {"c.py": twin}, target))


def test_jit_only_kernels_with_ptx_are_not_the_rocm_path(tmp_path: Path) -> None:
    files = {
        "gptqmodel/utils/cpp.py": GPTQ_CPP,
        "gptqmodel/utils/rocm.py": GPTQ_ROCM,
        "gptqmodel_ext/marlin/marlin.cuh": GPTQ_MARLIN,
    }
    result = audit_files(tmp_path, files, "rocm:gfx942")
    assert result.verdict.supported
    ptx = [f for f in result.findings if f.rule == "stays-cuda-only"]
    assert ptx
    assert {f.risk for f in ptx} == {"lower"}
    assert "just in time" in ptx[0].meaning
    assert result.verdict.cuda_only  # still named as CUDA-only
    assert result.verdict.risk == "lower"
    assert any(JIT_ONLY in s.detail for s in scan_tree(str(tmp_path)).signals)
    # Twin: the same kernels built at install time by a CUDAExtension stay a missing ROCm path (a moderate
    # finding, to check); the project's ROCm path still sets the verdict (verdict.decide).
    twin = audit_files(tmp_path / "b", {**files, "setup.py": SETUP_CUDA_EXTENSION}, "rocm:gfx942")
    assert "stays-cuda-only" in raised(twin)
    checks = [line for line in twin.verdict.reasons if line.startswith("to check on ROCm")]
    assert any("stays-cuda-only" in line for line in checks)
    assert twin.verdict.risk == "lower"


@pytest.mark.parametrize("target", OFF_CUDA)
def test_jit_only_kernels_are_not_the_path_of_a_project_that_names_the_device(
    tmp_path: Path, target: str
) -> None:
    files = {
        "gptqmodel/utils/cpp.py": GPTQ_CPP,
        "gptqmodel/utils/rocm.py": GPTQ_ROCM,
        "gptqmodel/devices.py": GPTQ_DEVICES,
        "ext/kernels/dequant.cu": GPTQ_KERNEL,
    }
    result = audit_files(tmp_path, files, target)
    assert "cuda-source" not in raised(result)
    assert result.verdict.risk == "lower"
    # Twin: a build-time CUDAExtension compiles the same source at install: findings again, named first
    # as places to check (the device the project names still sets the verdict: verdict.decide).
    twin = audit_files(tmp_path / "b", {**files, "setup.py": SETUP_CUDA_EXTENSION}, target)
    found = raised(twin) & {"cuda-source", "cuda-extension", "compiled-cuda-extension"}
    assert found
    checks = [line for line in twin.verdict.reasons if line.startswith("to check on")]
    assert any(rule in line for line in checks for rule in found)
    # Twin: a load() of named C++ files only (YOLOX's fast_cocoeval) builds no CUDA just in time.
    cpp_only = (
        'from torch.utils.cpp_extension import load\n\nops = load(name="ops", sources=["csrc/ops.cpp"])\n'
    )
    twin = audit_files(tmp_path / "c", {**files, "gptqmodel/utils/cpp.py": cpp_only}, target)
    assert "cuda-source" in raised(twin)


@pytest.mark.parametrize("target", ALL)
def test_tensorflow_reaches_other_gpus_through_another_build_or_a_plugin(tmp_path: Path, target: str) -> None:
    files = {"pyproject.toml": SPLEETER_PYPROJECT, "spleeter/separator.py": SPLEETER_SEPARATOR}
    result = audit_files(tmp_path, files, target)
    assert result.verdict.risk == "moderate"
    rules = raised(result)
    # On ROCm the import is AMD's documented tensorflow-rocm install (lower); spleeter's exact Poetry pin
    # (tensorflow = "2.12.1") is what is moderate there: that version of tensorflow-rocm, or the pin lifted.
    assert ("framework-requirement" if target == "rocm:gfx942" else "framework-import") in rules
    plugin = {"rocm:gfx942": "tensorflow-rocm", "xpu": "Intel", "mps": "tensorflow-metal"}[target]
    assert any(plugin in f.meaning for f in result.findings if f.rule == "framework-import")
    # Twin: beside JAX (big_vision's trainer and model, as many modules as import TensorFlow) TensorFlow
    # feeds data on the CPU: it does not set the verdict.
    model = "import jax\nimport jax.numpy as jnp\n\n\ndef apply(x):\n    return jnp.tanh(x)\n"
    twin_files = {**files, "big_vision/train.py": BIG_VISION_TRAIN, "big_vision/models/vit.py": model}
    twin = audit_files(tmp_path / "b", twin_files, target)
    tf_rows = [f for f in twin.findings if "TensorFlow" in f.meaning]
    assert tf_rows
    assert {f.risk for f in tf_rows} == {"lower"}
    # (On ROCm TensorFlow is lower on its own, tensorflow-rocm; the exact pin is what the JAX path clears.)
    raised_alone = [f for f in tf_rows if target != "rocm:gfx942" or f.rule == "framework-requirement"]
    assert raised_alone
    assert all("feeds it data" in f.meaning for f in raised_alone)


def test_tensorflow_on_the_cpu_is_as_installed(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"spleeter/separator.py": SPLEETER_SEPARATOR}, "cpu")
    assert result.verdict.risk == "lower"


@pytest.mark.parametrize(
    ("target", "level"), [("rocm:gfx942", "moderate"), ("xpu", "higher"), ("mps", "higher")]
)
def test_ctranslate2_has_a_rocm_build_and_no_intel_or_apple_gpu_backend(
    tmp_path: Path, target: str, level: str
) -> None:
    files = {"requirements.txt": WHISPER_REQUIREMENTS, "faster_whisper/transcribe.py": WHISPER_TRANSCRIBE}
    result = audit_files(tmp_path, files, target)
    assert result.verdict.risk == level
    imports = [f for f in result.findings if f.rule == "cuda-only-import"]
    assert imports
    assert "CTranslate2" in imports[0].meaning
    # Twin: an import guarded by try/except ImportError has a way around it: one level lower.
    guarded = WHISPER_TRANSCRIBE.replace(
        "import ctranslate2\n", "try:\n    import ctranslate2\nexcept ImportError:\n    ctranslate2 = None\n"
    )
    twin = audit_files(tmp_path / "b", {"faster_whisper/transcribe.py": guarded}, target)
    assert twin.verdict.risk == {"moderate": "lower", "higher": "moderate"}[level]
