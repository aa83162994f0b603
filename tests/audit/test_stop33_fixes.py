"""Fixes in stop 33 (#22), with the real files and twins that keep the old reading.

- ``if device == "auto":`` runs only where the caller asked the project to choose: like ``device is None``,
  the ladder under it is a default, and an explicit 'xpu' passes through (UltraMS's ``--device``, round 598;
  corpus: be-great and grizzlyme on XPU moved right with it, none wrong). The same ladder with no caller's
  value before it stays the project's only device (moderate).
- A whole module's helper whose only caller sits under ``if device is None:`` in a function with no trigger
  token outside its docstring was guarded when every line was visited and not with the hot lines alone
  (origami-ml 2.0.1's utils/device.py, round 593): the callers' lines are now visited again, as in a long
  module. No verdict of the corpus moved; the scan-speedup test over the corpus caught it.
- ``return torch.device("cuda" if torch.cuda.is_available() else "cpu")`` in a function is a cuda-or-cpu pick
  the callers place work with, as ``device = ...`` bound and read again is (guertena's ``get_device()``,
  round 600; corpus: mct-quantizers on XPU and MPS moved right too, none wrong). Where the project's own
  functions take a device, the caller chooses and the pick is a default (scan._caller_devices), as before.
- A ``keywords``/``classifiers`` list in pyproject.toml or setup.py names topics, not requirements:
  erfi-pytorch 1.0.0's ``keywords = ["pytorch", "cuda", "triton", ...]`` read as Triton required (*higher* on
  MPS for a package whose MPS path is plain PyTorch; round 623, two levels off, so it left the corpus).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.model import AuditReport
from envsnap.audit.scanners.build import scan_build
from envsnap.audit.scanners.python import scan_python
from envsnap.audit.scanners.python_trigger import trigger_lines
from tests.audit.conftest import project


def _report(tree: Path | str, target: str) -> AuditReport:
    return audit(scan_tree(str(tree)), None, parse_target(target))


def _choices(report: AuditReport) -> list[str]:
    return [f.risk for f in report.findings if f.rule == "device-choices" and f.role == "core"]


def test_an_auto_setting_that_passes_any_device_through_is_lower_on_xpu() -> None:
    report = _report(project("real-ultrams"), "xpu")
    assert report.verdict.risk == "lower", report.verdict.reasons
    assert _choices(report) == ["lower"]


# ultrams 0.3.0 ultrams/cli.py:34, 43-53 (trimmed): "auto" is the default of a free-text option.
AUTO = """\
import argparse

import torch

from ultrams.inference import UltraMS


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda, or mps")
    args = parser.parse_args(argv)
    device = args.device
    if device == "auto":
        device = (
            "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
        )
    return UltraMS.from_pretrained("unsupervised", device=device)
"""
# Twin: the same ladder is the only device; no option reaches it.
ALWAYS = """\
import torch

from ultrams.inference import UltraMS


def main():
    device = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    return UltraMS.from_pretrained("unsupervised", device=device)
"""


@pytest.mark.parametrize(("body", "risk"), [(AUTO, "lower"), (ALWAYS, "moderate")], ids=["auto", "always"])
def test_the_auto_twins(tmp_path: Path, body: str, risk: str) -> None:
    package = tmp_path / "ultrams"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "cli.py").write_text(body, encoding="utf-8")
    report = _report(tmp_path, "xpu")
    assert _choices(report) == [risk]
    assert report.verdict.risk == risk


def test_a_helper_called_only_where_no_device_was_given_is_guarded_with_the_hot_lines_alone() -> None:
    path = Path(project("real-origami-ml")) / "origami" / "utils" / "device.py"
    data = path.read_bytes()
    hot = trigger_lines(data)
    assert 40 not in hot  # `return auto_device()` has no trigger token
    found = [s for s in scan_python("device.py", data.decode(), hot) if s.kind == "device-choices"]
    assert [(s.line, s.guarded) for s in found] == [(20, True)]


def test_a_returned_cuda_or_cpu_pick_is_the_projects_device_on_mps() -> None:
    report = _report(project("real-guertena"), "mps")
    assert report.verdict.risk == "moderate", report.verdict.reasons
    assert "moderate" in _choices(report)


PICKER = """\
import torch


def get_device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(torch.nn.Module):
    def __init__(self{parameter}):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(3).to(get_device()))
"""


@pytest.mark.parametrize(
    ("parameter", "risk"),
    [("", "moderate"), (", device=None", "lower")],
    ids=["the-only-device", "the-caller-passes-one"],
)
def test_the_returned_pick_twins(tmp_path: Path, parameter: str, risk: str) -> None:
    package = tmp_path / "style"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "net.py").write_text(PICKER.format(parameter=parameter), encoding="utf-8")
    report = _report(tmp_path, "xpu")
    assert report.verdict.risk == risk, report.verdict.reasons


# erfi-pytorch 1.0.0 pyproject.toml:1-16 (trimmed).
KEYWORDS = """\
[project]
name = "erfi-pytorch"
version = "1.0.0"
keywords = ["pytorch", "cuda", "triton", "special-functions", "erfi"]
dependencies = ["torch>=2.0"]
"""


def _requirements(relative: str, text: str) -> list[tuple[str, int]]:
    return [(s.subject, s.line or 0) for s in scan_build(relative, text, "build") if s.kind == "requirement"]


@pytest.mark.parametrize(
    ("relative", "text", "required"),
    [
        ("pyproject.toml", KEYWORDS, []),
        # Twin: the same word in the dependency list is a requirement.
        ("pyproject.toml", KEYWORDS.replace('"torch>=2.0"', '"torch>=2.0", "triton"'), [("triton", 5)]),
        # A list over several lines, and classifiers.
        (
            "pyproject.toml",
            '[project]\nkeywords = [\n  "triton",\n  "cupy",\n]\n'
            'classifiers = ["Environment :: GPU :: NVIDIA CUDA :: 12"]\ndependencies = ["cupy-cuda12x"]\n',
            [("cupy-cuda12x", 7)],
        ),
        # setup() on one line: what follows the keywords stays read.
        (
            "setup.py",
            'setup(name="x", keywords=["triton"], install_requires=["triton>=2.1"])\n',
            [("triton", 1)],
        ),
    ],
    ids=["keywords", "dependency-twin", "multi-line", "one-line-setup"],
)
def test_a_keyword_list_is_no_requirement(relative: str, text: str, required: list[tuple[str, int]]) -> None:
    assert _requirements(relative, text) == required


def test_a_keyword_naming_triton_leaves_a_plain_torch_package_lower_on_mps(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(KEYWORDS, encoding="utf-8")
    package = tmp_path / "erfi_pytorch"
    package.mkdir()
    (package / "__init__.py").write_text(
        "import torch\n\n\ndef erfi(x):\n    return x * 2\n", encoding="utf-8"
    )
    assert _report(tmp_path, "mps").verdict.risk == "lower"
