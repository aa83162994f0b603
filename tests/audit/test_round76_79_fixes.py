"""Fixes after measurement rounds 76-79 (#22): an optional distribution's folder, float64 that is never made.

- shap 0.54.1's sdist holds ``backends/shap-cuda/`` (its own pyproject.toml, a CMake build of the GPU TreeSHAP
  kernels with inline PTX), a distribution the root project names only in its ``cuda`` extra: read as the
  project's own code, it made XPU and MPS *higher* where the truth is *lower* (round 76, two levels off).
- pytorch-optimizer 4.1 passes ``dtypes=(torch.float32, torch.float64)`` (the dtypes its foreach helper
  accepts) and keeps float64 only for a parameter that already is (``torch.float64 if p.dtype ==
  torch.float64 else torch.float32``): 14 false ``float64-on-mps`` findings (round 79).
Twins: the same folder as a required dependency, a real float64 cast beside the allowed list.
"""

from __future__ import annotations

from pathlib import Path

from envsnap.audit.scanners.python import scan_python
from tests.audit.conftest import audit_files

# shap 0.54.1 pyproject.toml (trimmed) and backends/shap-cuda (trimmed).
ROOT_PYPROJECT = """\
[project]
name = "shap"
dependencies = [
    "numpy>=2",
    "scipy",
]

[project.optional-dependencies]
cuda = ["shap-cuda==0.54.1"]
"""
BACKEND_PYPROJECT = """\
[build-system]
requires = ["scikit-build-core"]
build-backend = "scikit_build_core.build"

[project]
name = "shap-cuda"
dependencies = ["shap"]
"""
BACKEND_CMAKE = """\
cmake_minimum_required(VERSION 3.18)
project(shap_cuda LANGUAGES CXX CUDA)
"""
GPU_TREESHAP = """\
__device__ inline double atomicAddDouble(double* address, double val) {
  unsigned long long old;
  asm volatile("atom.global.add.f64 %0, [%1], %2;" : "=d"(val) : "l"(address), "d"(val));
  return val;
}
__global__ void ShapKernel(const float* x, float* phi) { phi[threadIdx.x] = x[threadIdx.x]; }
"""


def _shap(tmp_path: Path, root: str, target: str) -> str:
    files = {
        "pyproject.toml": root,
        "shap/__init__.py": "import numpy as np\n",
        "backends/shap-cuda/pyproject.toml": BACKEND_PYPROJECT,
        "backends/shap-cuda/CMakeLists.txt": BACKEND_CMAKE,
        "backends/shap-cuda/shap_cuda/cext/gpu_treeshap.cu": GPU_TREESHAP,
    }
    return audit_files(tmp_path, files, target).verdict.risk


def test_a_folder_that_is_an_optional_distribution_is_not_the_projects_path(tmp_path: Path) -> None:
    assert _shap(tmp_path / "xpu", ROOT_PYPROJECT, "xpu") == "lower"
    assert _shap(tmp_path / "mps", ROOT_PYPROJECT, "mps") == "lower"


def test_twin_the_same_distribution_required_keeps_its_kernels(tmp_path: Path) -> None:
    required = ROOT_PYPROJECT.replace('    "scipy",\n', '    "scipy",\n    "shap-cuda==0.54.1",\n')
    assert _shap(tmp_path, required, "xpu") == "higher"


def test_twin_a_folder_with_another_name_keeps_its_kernels(tmp_path: Path) -> None:
    renamed = ROOT_PYPROJECT.replace('cuda = ["shap-cuda==0.54.1"]', 'cuda = ["shap-gpu==0.54.1"]')
    assert _shap(tmp_path, renamed, "xpu") == "higher"


def test_optional_distribution_on_hostile_build_files(tmp_path: Path) -> None:
    # Escapes, markup and a huge extras table in the root build file: read or ignored, never printed raw.
    hostile = ROOT_PYPROJECT + "weird = [" + ", ".join(f'"x{i}\\u001b[2J"' for i in range(3000)) + "]\n"
    hostile += 'markup = ["[bold]shap-cuda[/bold]"]\n'
    report = audit_files(
        tmp_path,
        {
            "pyproject.toml": hostile,
            "backends/shap-cuda/pyproject.toml": BACKEND_PYPROJECT,
            "backends/shap-cuda/k.cu": GPU_TREESHAP,
        },
        "xpu",
    )
    assert report.verdict.risk == "lower"
    assert not any("\x1b" in f.code or "\x1b" in f.meaning for f in report.findings)


# pytorch-optimizer 4.1.0: optimizer/sam.py (a foreach check) and base/optimizer.py (a kept dtype), trimmed.
OPTIMIZER = """\
import torch


class SAM:
    def step(self, group):
        if self.can_use_foreach(
            group, group.get('foreach'), dtypes=(torch.float32, torch.float64), default_on_cuda=True
        ):
            return
        for p in group['params']:
            dtype = torch.float64 if p.dtype == torch.float64 else torch.float32
            grad = p.grad.to(dtype=dtype)
            other = torch.float32 if p.dtype != torch.float64 else torch.float64
"""


def _float64_lines(text: str) -> list[int]:
    return [s.line or 0 for s in scan_python("optimizer.py", text, None) if s.kind == "float64"]


def test_an_allowed_dtypes_tuple_and_a_kept_dtype_make_no_float64() -> None:
    assert _float64_lines(OPTIMIZER) == []


def test_twin_a_cast_beside_them_is_still_float64() -> None:
    cast = OPTIMIZER + "            x = grad.to(torch.float64)\n"
    assert _float64_lines(cast) == [14]
    mixed = OPTIMIZER.replace("dtypes=(torch.float32, torch.float64)", "dtypes=(torch.float64, 'fast')")
    assert _float64_lines(mixed) == [7]
    other_test = OPTIMIZER.replace("if p.dtype == torch.float64 else", "if p.dtype == torch.float32 else")
    assert _float64_lines(other_test) == [11]
