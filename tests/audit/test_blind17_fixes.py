"""Fixes from blind round 17 (#22), each on an excerpt of the real project that showed it:

- a CUDA-only package declared only in an optional extra is one of the project's engines when the project's
  own device path runs on the target (infinity-emb 0.0.78: PyTorch by default, with CTranslate2 and TensorRT
  extras; on ROCm its torch.cuda device is the AMD GPU, on Apple GPUs it selects 'mps' itself);
- importing PyOpenCL is a path on Intel and AMD GPUs, whose drivers ship OpenCL (reikna 0.9.0: a PyOpenCL
  and a PyCUDA backend, one optional extra each); Apple deprecated OpenCL, so it is none on Apple GPUs.
- an ONNX Runtime provider name is a path for the ONNX models only: a device selection that never names the
  target still sends the PyTorch models to the CPU there (infinity-emb on XPU: OpenVINO's provider is named
  for the CPU device).
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit.model import AuditReport
from envsnap.audit.scanners.python import scan_python
from tests.audit.conftest import audit_files, raised

# infinity-emb 0.0.78 pyproject.toml ([tool.poetry.extras], trimmed).
EXTRAS = """\
[tool.poetry]
name = "infinity_emb"

[tool.poetry.dependencies]
python = ">=3.9,<4"
numpy = ">=1.20.0,<2"

[tool.poetry.extras]
ct2=["ctranslate2","sentence-transformers","torch","transformers"]
torch=["sentence-transformers","torch"]
# non-default gpu
tensorrt=["tensorrt"]
"""
# infinity_emb/inference/loading_strategy.py (get_loading_strategy_torch, trimmed).
SELECTION = """\
import torch


def get_loading_strategy_torch(args):
    if args.device == "auto":
        if torch.cuda.is_available():
            autodevice = "cuda"
        elif torch.backends.mps.is_available():
            autodevice = "mps"
        else:
            autodevice = "cpu"
    else:
        autodevice = args.device
    return autodevice
"""
# infinity_emb/transformer/utils_optimum.py (device_to_onnx, trimmed): OpenVINO's provider on the CPU device.
PROVIDERS = """\
import onnxruntime as ort


def device_to_onnx(device):
    available = ort.get_available_providers()
    if device == "cpu":
        if "OpenVINOExecutionProvider" in available:
            return "OpenVINOExecutionProvider"
        return "CPUExecutionProvider"
    elif device == "cuda":
        if "ROCMExecutionProvider" in available:
            return "ROCMExecutionProvider"
        elif "MIGraphXExecutionProvider" in available:
            return "MIGraphXExecutionProvider"
        return "CUDAExecutionProvider"
    elif device == "mps":
        return "CoreMLExecutionProvider"
"""
# infinity_emb/transformer/embedder/ct2.py (the guarded import).
CT2 = """\
from infinity_emb._optional_imports import CHECK_CTRANSLATE2

if CHECK_CTRANSLATE2.is_available:
    import ctranslate2  # type: ignore
"""


def _infinity(root: Path, target: str, core: str | None = None, selection: str = SELECTION) -> AuditReport:
    files = {
        "pyproject.toml": EXTRAS,
        "infinity_emb/inference/loading_strategy.py": selection,
        "infinity_emb/transformer/utils_optimum.py": PROVIDERS,
        "infinity_emb/transformer/embedder/ct2.py": CT2,
    }
    if core is not None:
        files["requirements.txt"] = core  # a requirement every install needs
    return audit_files(root, files, target)


@pytest.mark.parametrize("target", ["rocm:gfx942", "mps"])
def test_an_optional_engine_is_lower_where_the_projects_own_path_runs(tmp_path: Path, target: str) -> None:
    result = _infinity(tmp_path, target)
    extras = [f for f in result.findings if f.rule.startswith("cuda-only-")]
    assert {f.location for f in extras} >= {"pyproject.toml:9", "pyproject.toml:12"}
    assert all(f.risk == "lower" for f in extras)
    # TensorRT has no build there: lowered because the project's own path runs without it.
    tensorrt = next(f for f in extras if f.location == "pyproject.toml:12")
    assert "one of its engines" in tensorrt.meaning
    assert result.verdict.risk == "lower"


def test_an_optional_engine_stays_where_only_an_onnx_provider_names_the_target(tmp_path: Path) -> None:
    # XPU: the selection knows cuda, mps and cpu; OpenVINO's provider (named for the CPU device) is a path
    # for the ONNX models only, so the extras still say what runs on Intel GPUs.
    result = _infinity(tmp_path, "xpu")
    assert "cuda-only-requirement" in raised(result)
    assert not any("one of its engines" in f.meaning for f in result.findings)


def test_a_core_dependency_is_no_optional_engine(tmp_path: Path) -> None:
    result = _infinity(tmp_path, "mps", "ctranslate2>=4.0.0\n")
    core = [f for f in result.findings if f.location == "requirements.txt:1"]
    assert core
    assert core[0].risk != "lower"
    assert "one of its engines" not in core[0].meaning


# reikna 0.9.0: setup.py's extras, reikna/cluda/ocl.py and reikna/cluda/cuda.py (imports).
SETUP = """\
from setuptools import setup

setup(
    name="reikna",
    install_requires=["numpy>=2", "mako>=1"],
    extras_require=dict(
        pyopencl=["pyopencl>=2024"],
        pycuda=["pycuda>=2024"],
        dev=["pytest>=5"],
    ),
)
"""
OCL = """\
import pyopencl as cl
import pyopencl.array as clarray

from reikna.helpers import wrap_in_tuple
"""
CUDA = """\
import pycuda.gpuarray as gpuarray
import pycuda.driver as cuda
from pycuda.compiler import SourceModule
"""


def test_a_pyopencl_import_is_a_path_on_intel_and_amd_gpus() -> None:
    signals = list(scan_python("reikna/cluda/ocl.py", OCL))
    assert {s.subject for s in signals if s.kind == "port"} == {"rocm", "xpu"}
    assert all(s.facts()["reason"] == "imports PyOpenCL" for s in signals if s.kind == "port")


@pytest.mark.parametrize(
    ("target", "with_opencl", "level"),
    [
        ("xpu", True, "lower"),
        ("xpu", False, "moderate"),  # twin: PyCUDA alone, no OpenCL backend beside it
        ("mps", True, "moderate"),  # twin: Apple deprecated OpenCL; PyOpenCL is no path there
    ],
)
def test_a_pycuda_extra_beside_a_pyopencl_backend(
    tmp_path: Path, target: str, with_opencl: bool, level: str
) -> None:
    files = {"setup.py": SETUP, "reikna/cluda/cuda.py": CUDA}
    if with_opencl:
        files["reikna/cluda/ocl.py"] = OCL
    result = audit_files(tmp_path, files, target)
    assert result.verdict.risk == level
    assert any(f.rule.startswith("cuda-only-") for f in result.findings)


# The selection's ladder alone: under `args.device == "auto"` it is a default since stop 33 (an explicit
# device passes through; infinity-emb's own Device enum, which refuses 'xpu', lives in another module).
LADDER = """\
import torch


def get_loading_strategy_torch(args):
    if torch.cuda.is_available():
        autodevice = "cuda"
    elif torch.backends.mps.is_available():
        autodevice = "mps"
    else:
        autodevice = "cpu"
    return autodevice
"""


def test_a_provider_name_is_no_path_for_a_device_selection(tmp_path: Path) -> None:
    # infinity-emb on XPU: OpenVINO's provider serves the ONNX models on the CPU device; the models the
    # selection places (cuda, mps, cpu) fall back to the CPU there, and the selection says so.
    result = _infinity(tmp_path, "xpu", selection=LADDER)
    choices = [f for f in result.findings if f.rule == "device-choices"]
    assert choices
    assert all(f.risk == "moderate" for f in choices)


def test_a_device_selection_beside_the_targets_torch_module_stays_lower(tmp_path: Path) -> None:
    # Twin: a use of torch.xpu elsewhere is a path for the PyTorch models, so the selection is one place to
    # add 'xpu' to, not a missing port.
    files = {
        "pyproject.toml": EXTRAS,
        "infinity_emb/inference/loading_strategy.py": SELECTION,
        "infinity_emb/transformer/utils_optimum.py": PROVIDERS,
        "infinity_emb/xpu.py": "import torch\n\n\ndef count():\n    return torch.xpu.device_count()\n",
    }
    result = audit_files(tmp_path, files, "xpu")
    choices = [f for f in result.findings if f.rule == "device-choices"]
    assert choices
    assert all(f.risk == "lower" for f in choices)
