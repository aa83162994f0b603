"""An ONNX Runtime CUDA provider in a project whose core is PyTorch is a side engine (#22, stop 20).

cnocr 2.3 (blind round 132) puts ``CUDAExecutionProvider`` first in its ONNX sessions' providers, beside a
PyTorch recognizer whose ``context='gpu'`` is torch's 'cuda', the AMD GPU under ROCm; kornia's ONNX mixin,
docTR's contrib detector, GLiNER's ONNX runtime and Pix2Text's ONNX formula model have the same shape. Their
torch models run on the target; only the ONNX sessions fall back to the CPU. An ONNX-first project
(insightface, easy-dwpose: no torch at all) keeps the edit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit import scan_tree
from tests.audit.conftest import audit_files

# cnocr 2.3.3 cnocr/utils.py (get_default_ort_providers, trimmed).
PROVIDERS = """\
import onnxruntime as ort


def get_default_ort_providers():
    providers = ["CPUExecutionProvider"]
    if "CUDAExecutionProvider" in ort.get_available_providers():
        providers.insert(0, "CUDAExecutionProvider")
    return providers


def session(path):
    return ort.InferenceSession(path, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
"""
TORCH_MODULE = "import torch\nfrom torch import nn\n\n\nclass Block{n}(nn.Module):\n    pass\n"


def _project(torch_modules: int) -> dict[str, str]:
    files = {"ocr/utils.py": PROVIDERS}
    files.update({f"ocr/models/block{n}.py": TORCH_MODULE.format(n=n) for n in range(torch_modules)})
    return files


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_onnx_sessions_of_a_pytorch_project_are_its_side_engine(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _project(6), target)
    providers = [f for f in report.findings if f.rule == "ort-cuda-provider"]
    assert providers
    assert {f.risk for f in providers} == {"lower"}
    session = [f for f in providers if f.location == "ocr/utils.py:12"]
    assert session
    assert all("core is PyTorch" in f.meaning for f in session)
    assert report.verdict.risk == "lower"


@pytest.mark.parametrize("torch_modules", [0, 2])
def test_an_onnx_first_project_keeps_the_edit(tmp_path: Path, torch_modules: int) -> None:
    report = audit_files(tmp_path, _project(torch_modules), "rocm:gfx942")
    assert "moderate" in {f.risk for f in report.findings if f.rule == "ort-cuda-provider"}


def test_torch_files_in_tests_do_not_make_a_pytorch_project(tmp_path: Path) -> None:
    files = {"ocr/utils.py": PROVIDERS}
    files.update({f"tests/test_block{n}.py": TORCH_MODULE.format(n=n) for n in range(8)})
    report = audit_files(tmp_path, files, "rocm:gfx942")
    assert "moderate" in {f.risk for f in report.findings if f.rule == "ort-cuda-provider"}


def test_a_big_tree_is_sampled_not_read_whole(tmp_path: Path) -> None:
    # 600 torch modules and one ONNX file: a sample of at most TORCH_FIRST_SAMPLE core files decides.
    for name, text in _project(600).items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    marked = [s for s in scan_tree(str(tmp_path)).signals if s.kind == "ort-provider"]
    assert marked
    assert all("torch-first=1" in s.detail for s in marked if not s.guarded)
