"""Fixes from blind round 7 (#22), each on an excerpt of the real project that showed it:

- an extension a build script compiles only off ROCm (AutoGPTQ 0.7.1's ``if not ROCM_VERSION and
  COMPILE_MARLIN:``) leaves its sources out of the ROCm build: their inline PTX is not judged for ROCm;
- a TensorRT import in a standalone ``__main__`` script of a PyTorch project is a deployment recipe, not the
  project's runtime (YOLOX 0.3.0 tools/trt.py); TensorRT imported by the package's modules stays higher;
- ``torch.utils.cpp_extension.load`` builds CUDA only for ``.cu`` sources or ``with_cuda=True``: YOLOX's
  C++ cocoeval JitOp (``extra_cuda_cflags`` passed for ``*.cpp`` sources) is no CUDA extension;
- CUDA kernels whose every ``.cu`` has a CPU twin (torch-scatter 2.1.2 ``csrc/cuda/X_cuda.cu`` beside
  ``csrc/cpu/X_cpu.cpp``) are a device move off NVIDIA/AMD (moderate), not a rewrite;
- a torch requirement capped below the target's first builds (huggingsound 0.1.6 ``torch<1.13``) is
  ``torch-pin``: torch 1.12's ROCm 5.1.1 wheels have no gfx942 code objects, XPU wheels start at 2.5.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from envsnap.audit.scanners.python import rocm_test
from envsnap.audit.scanners.torch_pin import torch_pins
from tests.audit.conftest import audit_files, raised

# AutoGPTQ 0.7.1 setup.py, the extension list (trimmed to Marlin and exllama).
AUTOGPTQ_SETUP = """\
import os
from torch.utils import cpp_extension

ROCM_VERSION = os.environ.get('ROCM_VERSION', None)
COMPILE_MARLIN = True
extensions = []
# Marlin is not ROCm-compatible, CUDA only
if not ROCM_VERSION and COMPILE_MARLIN:
    extensions.append(
        cpp_extension.CUDAExtension(
            'autogptq_marlin_cuda',
            [
                'autogptq_extension/marlin/marlin_cuda.cpp',
                'autogptq_extension/marlin/marlin_cuda_kernel.cu',
                'autogptq_extension/marlin/marlin_repack.cu'
            ]
        )
    )
extensions.append(
    cpp_extension.CUDAExtension(
        "exllama_kernels",
        [
            "autogptq_extension/exllama/exllama_ext.cpp",
            "autogptq_extension/exllama/cuda_func/q4_matmul.cu",
        ],
    )
)
"""
# AutoGPTQ 0.7.1 autogptq_extension/marlin/marlin_cuda_kernel.cu, cp_async4_pred.
MARLIN_PTX = """\
__device__ inline void cp_async4_pred(void* smem_ptr, const void* glob_ptr, bool pred = true) {
  const int BYTES = 16;
  uint32_t smem = static_cast<uint32_t>(__cvta_generic_to_shared(smem_ptr));
  asm volatile(
    "{\\n"
    "   .reg .pred p;\\n"
    "   setp.ne.b32 p, %0, 0;\\n"
    "   @p cp.async.cg.shared.global [%1], [%2], %3;\\n"
    "}\\n" :: "r"((int) pred), "r"(smem), "l"(glob_ptr), "n"(BYTES)
  );
}
"""
MARLIN = "autogptq_extension/marlin/marlin_cuda_kernel.cu"


def test_an_extension_built_only_off_rocm_leaves_its_ptx_out_of_the_rocm_build(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"setup.py": AUTOGPTQ_SETUP, MARLIN: MARLIN_PTX}, "rocm:gfx942")
    assert not [f for f in report.findings if f.location.startswith(MARLIN) and f.risk != "lower"]
    assert raised(report) == {"cuda-extension"}  # exllama, hipified at build: moderate without a port
    assert report.verdict.risk == "moderate"


def test_the_same_extension_built_everywhere_keeps_its_ptx_for_rocm(tmp_path: Path) -> None:
    setup = AUTOGPTQ_SETUP.replace("if not ROCM_VERSION and COMPILE_MARLIN:", "if COMPILE_MARLIN:")
    report = audit_files(tmp_path, {"setup.py": setup, MARLIN: MARLIN_PTX}, "rocm:gfx942")
    assert "inline-ptx" in raised(report)
    assert report.verdict.risk == "higher"


def test_a_source_another_extension_also_builds_stays_in_the_rocm_build(tmp_path: Path) -> None:
    setup = AUTOGPTQ_SETUP.replace(
        '"autogptq_extension/exllama/cuda_func/q4_matmul.cu",',
        f'"autogptq_extension/exllama/cuda_func/q4_matmul.cu", "{MARLIN}",',
    )
    report = audit_files(tmp_path, {"setup.py": setup, MARLIN: MARLIN_PTX}, "rocm:gfx942")
    assert "inline-ptx" in raised(report)


def test_left_out_of_rocm_does_not_help_xpu(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"setup.py": AUTOGPTQ_SETUP, MARLIN: MARLIN_PTX}, "xpu")
    assert report.verdict.risk == "higher"


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("not ROCM_VERSION and COMPILE_MARLIN", False),
        ("torch.version.hip is None", False),
        ("not is_rocm_pytorch()", False),
        ("ROCM_VERSION", True),
        ("torch.version.hip", True),
        ("torch.version.hip is not None", True),
        ("COMPILE_MARLIN", None),
        ("not BUILD_CUDA_EXT", None),
        ("shipping and not chip_ready", None),  # 'hip' inside a word is no ROCm test
    ],
)
def test_which_conditions_hold_only_on_or_off_rocm(condition: str, expected: bool | None) -> None:
    test = ast.parse(condition, mode="eval").body
    assert rocm_test(test) is expected


def test_else_of_a_rocm_check_is_left_out_of_rocm(tmp_path: Path) -> None:
    setup = (
        "import torch\nfrom torch.utils import cpp_extension\nif torch.version.hip:\n    ext = []\nelse:\n"
        f"    ext = [cpp_extension.CUDAExtension('marlin', ['{MARLIN}'])]\n"
    )
    report = audit_files(tmp_path, {"setup.py": setup, MARLIN: MARLIN_PTX}, "rocm:gfx942")
    assert "inline-ptx" not in raised(report)


# YOLOX 0.3.0 tools/trt.py (head and entry point) and yolox/core/trainer.py (device lines).
YOLOX_TRT = """\
import argparse
import os
import shutil
from loguru import logger

import tensorrt as trt
import torch
from torch2trt import torch2trt


@logger.catch
@torch.no_grad()
def main():
    args = make_parser().parse_args()
    model_trt = torch2trt(model, [x], fp16_mode=True, log_level=trt.Logger.INFO, max_workspace_size=(1 << 32))


if __name__ == "__main__":
    main()
"""
YOLOX_TRAINER = """\
import torch


class Trainer:
    def __init__(self, exp, args):
        self.scaler = torch.cuda.amp.GradScaler(enabled=args.fp16)
        self.device = "cuda:{}".format(self.local_rank)

    def before_train(self):
        torch.cuda.set_device(self.local_rank)
"""


def test_tensorrt_in_a_standalone_script_of_a_pytorch_project_is_a_deployment_recipe(tmp_path: Path) -> None:
    files = {"tools/trt.py": YOLOX_TRT, "yolox/core/trainer.py": YOLOX_TRAINER}
    report = audit_files(tmp_path, files, "rocm:gfx942")
    trt = [f for f in report.findings if f.location.startswith("tools/trt.py")]
    assert trt
    assert all(f.risk == "lower" for f in trt)
    assert all("deployment script" in f.meaning for f in trt)
    assert report.verdict.risk == "lower"
    assert audit_files(tmp_path / "x", files, "xpu").verdict.risk == "moderate"  # the trainer's edits


def test_tensorrt_imported_by_a_module_stays_higher(tmp_path: Path) -> None:
    module = YOLOX_TRT.replace('if __name__ == "__main__":\n    main()\n', "")
    files = {"yolox/deploy/trt.py": module, "yolox/core/trainer.py": YOLOX_TRAINER}
    report = audit_files(tmp_path, files, "rocm:gfx942")
    assert "cuda-only-import" in raised(report)
    assert report.verdict.risk == "higher"


def test_tensorrt_scripts_alone_are_the_project(tmp_path: Path) -> None:
    # A TensorRT deployment repository (only scripts, no PyTorch device code of its own) stays higher.
    report = audit_files(tmp_path, {"yolov5_trt.py": YOLOX_TRT}, "rocm:gfx942")
    assert report.verdict.risk == "higher"


# YOLOX 0.3.0 yolox/layers/jit_ops.py, JitOp.jit_load (sources come from *.cpp globs).
YOLOX_JIT = """\
class JitOp:
    def jit_load(self, verbose=True):
        from torch.utils.cpp_extension import load
        op_module = load(
            name=self.name,
            sources=self.sources(),
            extra_cflags=self.cxx_args(),
            extra_cuda_cflags=self.nvcc_args(),
            verbose=verbose,
        )
        return op_module
"""


def test_a_jit_load_without_cuda_sources_is_cpp(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"yolox/layers/jit_ops.py": YOLOX_JIT}, "xpu")
    assert "cuda-extension" not in {f.rule for f in report.findings}
    assert report.verdict.risk == "lower"


def test_a_jit_load_with_cuda_says_so(tmp_path: Path) -> None:
    text = YOLOX_JIT.replace("verbose=verbose,", "verbose=verbose, with_cuda=True,")
    report = audit_files(tmp_path, {"yolox/layers/jit_ops.py": text}, "xpu")
    assert "cuda-extension" in raised(report)


# torch-scatter 2.1.2 csrc/cuda/scatter_cuda.cu (head) and csrc/cpu/scatter_cpu.cpp (head).
SCATTER_CUDA = """\
#include "scatter_cuda.h"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/detail/IndexUtils.cuh>

#define THREADS 256
#define BLOCKS(N) (N + THREADS - 1) / THREADS

template <typename scalar_t, ReductionType REDUCE>
__global__ void
scatter_kernel(const scalar_t *src_data,
               const at::cuda::detail::TensorInfo<int64_t, int> index_info,
               scalar_t *out_data, int E, int K, int N, int numel) {
  int thread_idx = blockIdx.x * blockDim.x + threadIdx.x;
}
"""
SCATTER_CPU = """\
#include "scatter_cpu.h"

std::tuple<torch::Tensor, torch::optional<torch::Tensor>>
scatter_cpu(torch::Tensor src, torch::Tensor index, int64_t dim,
            torch::optional<torch::Tensor> optional_out,
            torch::optional<int64_t> dim_size, std::string reduce) {
  CHECK_CPU(src);
}
"""
OPS = ("scatter", "segment_coo", "segment_csr")


def _scatter_tree(with_cpu: bool) -> dict[str, str]:
    files = {f"csrc/cuda/{op}_cuda.cu": SCATTER_CUDA.replace("scatter_cuda", f"{op}_cuda") for op in OPS}
    if with_cpu:
        files |= {f"csrc/cpu/{op}_cpu.cpp": SCATTER_CPU.replace("scatter_cpu", f"{op}_cpu") for op in OPS}
    return files


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_cuda_kernels_with_cpu_twins_are_a_device_move(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _scatter_tree(with_cpu=True), target)
    assert raised(report) == {"cuda-kernel-cpu-twin"}
    assert report.verdict.risk == "moderate"  # three of them do not add up to "several kernels to port"


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_cuda_kernels_without_cpu_twins_stay_a_port(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _scatter_tree(with_cpu=False), target)
    assert "cuda-source" in raised(report)
    assert report.verdict.risk == "higher"


def test_one_missing_twin_keeps_the_folder_a_port(tmp_path: Path) -> None:
    files = _scatter_tree(with_cpu=True)
    del files["csrc/cpu/segment_csr_cpu.cpp"]
    assert "cuda-source" in raised(audit_files(tmp_path, files, "xpu"))


def test_cpu_twins_do_not_change_rocm(tmp_path: Path) -> None:
    report = audit_files(tmp_path, _scatter_tree(with_cpu=True), "rocm:gfx942")
    assert "cuda-kernel-cpu-twin" not in {f.rule for f in report.findings}


# huggingsound 0.1.6 pyproject.toml ([tool.poetry.dependencies]) and setup.py (Poetry-generated).
HUGGINGSOUND_PYPROJECT = """\
[tool.poetry.dependencies]
python = ">=3.7,<4"
torch = ">=1.7,!=1.12.0,<1.13.0"
transformers = "^4.23.1"
"""
HUGGINGSOUND_SETUP = """\
from setuptools import setup

install_requires = \\
['datasets>=2.6.1,<3.0.0',
 'torch>=1.7,!=1.12.0,<1.13.0',
 'transformers>=4.23.1,<5.0.0']

setup_kwargs = {
    'install_requires': install_requires,
}
setup(**setup_kwargs)
"""


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu"])
@pytest.mark.parametrize("name", ["pyproject.toml", "setup.py"])
def test_a_torch_cap_below_the_targets_builds_is_a_pin_to_lift(
    tmp_path: Path, target: str, name: str
) -> None:
    text = HUGGINGSOUND_PYPROJECT if name == "pyproject.toml" else HUGGINGSOUND_SETUP
    report = audit_files(tmp_path, {name: text}, target)
    assert raised(report) == {"torch-pin"}
    assert report.verdict.risk == "moderate"
    assert "1.12" in report.findings[0].meaning


@pytest.mark.parametrize(
    ("requirement", "target", "pinned"),
    [
        ("torch>=1.7", "xpu", False),  # no cap
        ("torch<2.4", "rocm:gfx942", False),  # 2.3 ships ROCm 6.0 wheels with gfx942
        ("torch<2.4", "xpu", True),  # XPU wheels start at 2.5
        ("torch==2.1.0", "rocm:gfx942", True),  # ROCm 5.6 wheels: no gfx942 code objects
        ("torch==2.1.0", "rocm:gfx90a", False),
        ("torch<1.13", "mps", False),  # 1.12 is the first torch with MPS
        ("torch<1.13", "cpu", False),
        # torchvision 0.13 is built for torch 1.12: its cap caps torch (stop 23, torchaug); a floor is no cap.
        ("torchvision<0.14", "xpu", True),
        ("torchvision>=0.14", "xpu", False),
        ("torchvision<0.21", "xpu", False),  # 0.20 pairs with torch 2.5
    ],
)
def test_which_torch_caps_matter(tmp_path: Path, requirement: str, target: str, pinned: bool) -> None:
    report = audit_files(tmp_path, {"requirements.txt": requirement + "\n"}, target)
    assert ("torch-pin" in raised(report)) is pinned


def test_the_pin_is_read_from_setup_strings_and_not_from_comments() -> None:
    setup = "# torch<1.10 was too old\nfrom setuptools import setup\nsetup(install_requires=['torch<1.13'])\n"
    assert [(s.line, s.subject) for s in torch_pins("setup.py", setup)] == [(3, "<1.13")]


def test_the_pin_reader_takes_hostile_lines(tmp_path: Path) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    text = f"torch<1.13 @ https://user:{token}@example.invalid/torch.whl\n" + "torch<1" * 100_000 + "\n"
    report = audit_files(tmp_path, {"requirements.txt": text}, "xpu")
    pins = [f for f in report.findings if f.rule == "torch-pin"]
    assert pins
    assert all(token not in f.code and len(f.code) <= 200 for f in pins)
