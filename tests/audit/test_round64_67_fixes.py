"""Fixes after measurement rounds 64 and 65 (#22): type-checking imports, lazy subpackages, OpenVINO's CPU.

- llamafactory 0.9.5 imports vLLM in ``chat/base_engine.py`` under ``if TYPE_CHECKING:`` (for an annotation):
  it never runs, yet set ROCm to *moderate*.
- rapidocr 3.10 loads its TensorRT engine with ``from .tensorrt import TRTInferSession`` inside the
  dispatcher's function; the subpackage's ``__init__`` imports ``main.py``, which imports ``tensorrt`` at its
  top: a lazy feature, read as the package's main path (*higher* on ROCm, two levels off).
- rapidocr's OpenVINO engine compiles for ``device_name="CPU"`` only: OpenVINO is an Intel GPU path only
  where its ``"GPU"`` device is named (rtmlib's table maps ``'gpu': 'GPU'``).
Twins: an import beside ``TYPE_CHECKING`` in an ``else`` runs; a subpackage imported at the top of a loaded
module loads with it; the rtmlib table keeps its path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.conftest import audit_files

# llamafactory 0.9.5 src/llamafactory/chat/base_engine.py (head, trimmed).
BASE_ENGINE = """\
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizer
    from vllm import AsyncLLMEngine


class BaseEngine(ABC):
    model: "PreTrainedModel | AsyncLLMEngine"

    @abstractmethod
    def __init__(self, model_args: Any) -> None: ...
"""


def _engine_risks(tmp_path: Path, text: str) -> list[str]:
    report = audit_files(tmp_path, {"llamafactory/chat/base_engine.py": text}, "rocm:gfx942")
    return [f.risk for f in report.findings if f.rule == "cuda-only-import"]


def test_a_type_checking_import_never_runs(tmp_path: Path) -> None:
    assert _engine_risks(tmp_path, BASE_ENGINE) == []


def test_twin_the_else_of_type_checking_runs(tmp_path: Path) -> None:
    text = BASE_ENGINE.replace(
        "    from vllm import AsyncLLMEngine\n", "    pass\nelse:\n    from vllm import AsyncLLMEngine\n"
    )
    assert _engine_risks(tmp_path, text) == ["moderate"]


# rapidocr 3.10.0: inference_engine/base.py (the dispatcher, trimmed), tensorrt/__init__.py, tensorrt/main.py.
DISPATCHER = """\
from enum import Enum


class EngineType(Enum):
    ONNXRUNTIME = "onnxruntime"
    TENSORRT = "tensorrt"


def get_engine(engine_type):
    if engine_type == EngineType.ONNXRUNTIME:
        from .onnxruntime import OrtInferSession

        return OrtInferSession
    if engine_type == EngineType.TENSORRT:
        from .tensorrt import TRTInferSession

        return TRTInferSession
    raise ValueError(engine_type)
"""
TRT_MAIN = """\
import numpy as np
import tensorrt as trt
from cuda.bindings import runtime as cudart


class TRTInferSession:
    def __init__(self, cfg):
        self.logger = trt.Logger(trt.Logger.WARNING)
"""
PACKAGE = "rapidocr/inference_engine"


def _rapidocr(dispatcher: str = DISPATCHER) -> dict[str, str]:
    return {
        "setup.py": 'from setuptools import setup\nsetup(name="rapidocr", install_requires=["numpy"])\n',
        "rapidocr/__init__.py": "",
        f"{PACKAGE}/__init__.py": "",
        f"{PACKAGE}/base.py": dispatcher,
        f"{PACKAGE}/onnxruntime/__init__.py": "class OrtInferSession:\n    pass\n",
        f"{PACKAGE}/tensorrt/__init__.py": "from .main import TRTInferSession\n",
        f"{PACKAGE}/tensorrt/main.py": TRT_MAIN,
    }


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_a_subpackage_the_dispatcher_imports_lazily_is_a_feature(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _rapidocr(), target)
    assert report.verdict.risk == "lower"
    trt = [f for f in report.findings if f.location.startswith(f"{PACKAGE}/tensorrt/main.py")]
    assert trt
    assert all(f.risk == "lower" for f in trt)


def test_twin_a_subpackage_imported_at_the_top_loads_with_the_package(tmp_path: Path) -> None:
    files = _rapidocr()
    files["rapidocr/__init__.py"] = "from .inference_engine.tensorrt import TRTInferSession\n"
    report = audit_files(tmp_path, files, "rocm:gfx942")
    assert report.verdict.risk != "lower"


# rapidocr 3.10.0 inference_engine/openvino/main.py (trimmed) and rtmlib 0.0.16's table (tests/audit/
# test_openvino_path.py holds the whole excerpt).
OPENVINO_CPU = """\
from openvino import Core


class OpenVINOInferSession:
    def __init__(self, model_path):
        core = Core()
        self.session = core.compile_model(model=core.read_model(model_path), device_name="CPU")
"""


def test_openvino_compiled_for_the_cpu_is_no_intel_gpu_path(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"pkg/openvino/main.py": OPENVINO_CPU}, "xpu")
    assert not any("OpenVINO" in line for line in report.verdict.supported)
    gpu = OPENVINO_CPU.replace('device_name="CPU"', 'device_name="GPU"')
    twin = audit_files(tmp_path / "gpu", {"pkg/openvino/main.py": gpu}, "xpu")
    assert any("OpenVINO" in line for line in twin.verdict.supported)


# segment-geospatial 1.4.2 samgeo/common.py (round 71): today's autocast API, not the deprecated spelling.
AUTOCAST = """\
import torch


def choose_device(x):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        return x


def legacy(x):
    with torch.cuda.amp.autocast():
        return x
"""


def test_on_rocm_only_the_torch_cuda_amp_spelling_is_deprecated(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"samgeo/common.py": AUTOCAST}, "rocm:gfx942")
    meanings = {f.location: f.meaning for f in report.findings if f.rule == "cuda-amp"}
    assert "Deprecated" not in meanings["samgeo/common.py:5"]
    assert "AMD GPU" in meanings["samgeo/common.py:5"]
    assert "Deprecated" in meanings["samgeo/common.py:10"]
