"""Fixes after the held-out corpus' torch.compile cells (#22, stop 32), each with the real files and twins.

- ``torch.compile`` on MPS (Inductor's Metal prototype) is moderate only where it is the model's path. It is a
  switch (lower) where the eager callable stays bound beside the compiled one (inkan's
  ``bspline_basis_eager``, batch-nl's ``use_torch_compile``), and inside an ``optimize()`` method a caller
  opts into (wtpsplit). Corpus truths: all three lower on MPS; quad-torch's ``@torch.compile`` on every
  optimizer step stays moderate.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.model import AuditReport
from tests.audit.conftest import project


def _report(tree: Path | str, target: str) -> AuditReport:
    return audit(scan_tree(str(tree)), None, parse_target(target))


def _compile_risks(report: AuditReport) -> list[str]:
    return [f.risk for f in report.findings if f.rule == "torch-compile-mps" and f.role == "core"]


@pytest.mark.parametrize("name", ["real-inkan", "real-batch-nl-torch", "real-wtpsplit"])
def test_an_optional_compile_is_lower_on_mps(name: str) -> None:
    report = _report(project(name), "mps")
    assert report.verdict.risk == "lower", report.verdict.reasons
    assert "moderate" not in _compile_risks(report)


def test_a_compile_on_every_step_stays_moderate_on_mps() -> None:
    report = _report(project("real-quad-torch"), "mps")
    assert report.verdict.risk == "moderate", report.verdict.reasons
    assert "moderate" in _compile_risks(report)


def _module(root: Path, body: str) -> Path:
    package = root / "fast"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "model.py").write_text("import torch\n\n" + body, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("body", "risk"),
    [
        ("def run(model, x):\n    model = torch.compile(model)\n    return model(x)\n", "moderate"),
        ("class M:\n    def __init__(self, m):\n        self.m = torch.compile(self.m)\n", "moderate"),
        ("def run(model, x):\n    fast = torch.compile(model)\n    return fast(x)\n", "lower"),
        ("def run(model):\n    model = torch.compile(model, backend='inductor')\n", "moderate"),
        ("class S:\n    def optimize(self):\n        self.model = torch.compile(self.model)\n", "lower"),
        ("class S:\n    def optimizer_step(self):\n        self.m = torch.compile(self.m)\n", "moderate"),
    ],
)
def test_the_twins(tmp_path: Path, body: str, risk: str) -> None:
    assert _compile_risks(_report(_module(tmp_path, body), "mps")) == [risk]
