"""A module the project imports only where its own device test picks CUDA is the CUDA path (#22 round 58).

aqlm 1.1.7's kernel selector imports ``inference_kernels/cuda_kernel.py`` (a module-level ``load()`` of its
CUDA sources) and ``triton_kernel.py`` only in branches testing ``(..., codebooks.device.type, ...) == (...,
"cuda", ...)``, and gives every other device a plain-PyTorch ``dequantize_gemm``: envsnap rated XPU and MPS
*higher* (the JIT build), two levels off. Twins: the same module imported once outside such a branch loads
everywhere; a branch testing 'mps' is not the CUDA path; on ROCm the device is 'cuda' too, so there the
branch is taken.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from envsnap.audit.model import AuditReport
from envsnap.audit.scanners.python_shapes import cuda_branch_test
from tests.audit.conftest import audit_files

# aqlm 1.1.7 src/aqlm/inference_kernels/kernel_selector.py (trimmed: two branches and the fallback).
SELECTOR = """\
import torch


def get_forward_pass_kernel(codebooks, optimize_for_training):
    num_codebooks, codebook_size, out_group_size, in_group_size = codebooks.shape
    if (optimize_for_training, codebooks.device.type, num_codebooks, codebook_size, out_group_size) == (
        False,
        "cuda",
        1,
        65536,
        1,
    ) and in_group_size in [8, 16]:
        from .cuda_kernel import CUDA_FOLDER

        return torch.ops.aqlm.code1x16_matmat
    elif (optimize_for_training, codebooks.device.type, out_group_size) == (False, "cuda", 1):
        from .triton_kernel import triton_matmul

        return triton_matmul
    else:
        from .dequantization import dequantize_gemm

        return dequantize_gemm
"""
# aqlm 1.1.7 src/aqlm/inference_kernels/cuda_kernel.py (head) and triton_kernel.py (imports).
CUDA_KERNEL = """\
import os
from typing import Optional

import torch
from torch.utils.cpp_extension import load

CUDA_FOLDER = os.path.dirname(os.path.abspath(__file__))
CUDA_KERNEL = load(
    name="codebook_cuda",
    sources=[os.path.join(CUDA_FOLDER, "cuda_kernel.cpp"), os.path.join(CUDA_FOLDER, "cuda_kernel.cu")],
)
"""
TRITON_KERNEL = (
    "import torch\nimport triton\nimport triton.language as tl\n\n\ndef triton_matmul(x):\n    return x\n"
)
KERNEL = "__global__ void code1x16_matmat(float* out) { out[threadIdx.x] = 0.f; }\n"
PKG_INFO = """\
Metadata-Version: 2.1
Name: aqlm
Version: 1.1.7
Requires-Dist: torch>=2.2.0
Provides-Extra: gpu
Requires-Dist: triton>=2.1; extra == "gpu"
"""
KERNELS = "src/aqlm/inference_kernels"


def _aqlm(selector: str = SELECTOR, **extra: str) -> dict[str, str]:
    return {
        "PKG-INFO": PKG_INFO,
        "src/aqlm/__init__.py": "",
        f"{KERNELS}/__init__.py": "",
        f"{KERNELS}/kernel_selector.py": selector,
        f"{KERNELS}/cuda_kernel.py": CUDA_KERNEL,
        f"{KERNELS}/cuda_kernel.cu": KERNEL,
        f"{KERNELS}/cuda_kernel.cpp": "#include <torch/extension.h>\n",
        f"{KERNELS}/triton_kernel.py": TRITON_KERNEL,
        f"{KERNELS}/dequantization.py": "import torch\n\n\ndef dequantize_gemm(x):\n    return x\n",
        **extra,
    }


def _raised(report: AuditReport) -> set[str]:
    return {f"{f.rule}@{f.location}" for f in report.findings if f.risk != "lower"}


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_module_imported_only_in_cuda_branches_is_the_cuda_path(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _aqlm(), target)
    assert _raised(report) == set()
    assert report.verdict.risk == "lower"
    build = next(f for f in report.findings if f.rule == "cuda-extension")
    assert "only where its device test picks CUDA" in build.meaning


def test_twin_on_rocm_the_cuda_branch_is_taken(tmp_path: Path) -> None:
    report = audit_files(tmp_path, _aqlm(), "rocm:gfx942")
    assert f"cuda-extension@{KERNELS}/cuda_kernel.py:8" in _raised(report)
    assert report.verdict.risk == "moderate"


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_twin_one_import_elsewhere_loads_the_module_everywhere(tmp_path: Path, target: str) -> None:
    files = _aqlm(**{"src/aqlm/inference.py": "from .inference_kernels.cuda_kernel import CUDA_FOLDER\n"})
    assert f"cuda-extension@{KERNELS}/cuda_kernel.py:8" in _raised(audit_files(tmp_path, files, target))


def test_twin_an_mps_branch_is_not_the_cuda_path(tmp_path: Path) -> None:
    selector = SELECTOR.replace('        "cuda",\n', '        "mps",\n')
    assert f"cuda-extension@{KERNELS}/cuda_kernel.py:8" in _raised(
        audit_files(tmp_path, _aqlm(selector), "xpu")
    )


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ('device.type == "cuda"', True),
        ('(a, device.type) == (False, "cuda:0")', True),
        ('device.type == "cuda" and ok', True),
        ('device.type != "cuda"', False),
        ('device.type == "cuda" or cpu', False),
        ('device.type in ("cuda", "xpu")', False),
        ('device.type == "mps"', False),
    ],
)
def test_which_tests_pick_cuda(test: str, expected: bool) -> None:
    assert cuda_branch_test(ast.parse(test, mode="eval").body) is expected


def test_hostile_selectors(tmp_path: Path) -> None:
    deep = "(" * 50 + '"cuda"' + ")" * 50
    selector = SELECTOR.replace(
        '(optimize_for_training, codebooks.device.type, out_group_size) == (False, "cuda", 1)', f"x == {deep}"
    )
    selector += "\n\n" + "\n".join(f"if d == 'cuda':\n    from . import m{n}" for n in range(2_000))
    report = audit_files(tmp_path, _aqlm(selector), "xpu")
    assert report.verdict.risk == "lower"
