"""float64 on tensors that are already on the host: after ``.cpu()`` and the views that keep the device,
or loaded with ``map_location="cpu"`` / ``device=torch.device("cpu")``.

avalanche 0.6.0's GEM plugin (#22 blind round 90) solves its QP in NumPy from
``g.cpu().contiguous().view(-1).double().numpy()``; schnetpack 2.1.1's ASE interface and calculators
(round 102) load the model onto the CPU and cast it to float64 there. MPS never sees the float64.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.conftest import audit_files

# avalanche 0.6.0 avalanche/training/plugins/gem.py (GEMPlugin.solve_quadprog, trimmed).
GEM = """\
import torch


def solve_quadprog(g, G):
    memories_np = G.cpu().double().numpy()
    gradient_np = g.cpu().contiguous().view(-1).double().numpy()
    return memories_np, gradient_np
"""
# schnetpack 2.1.1 schnetpack/interfaces/batchwise_optimization.py and ase_interface.py (trimmed).
LOADERS = """\
import torch
from schnetpack.utils import load_model


def load(model):
    return torch.load(model, map_location="cpu").to(torch.float64)


def calculator(model_file):
    return load_model(model_file, device=torch.device("cpu")).to(torch.float64)
"""


@pytest.mark.parametrize(("name", "text", "lines"), [("gem.py", GEM, {5, 6}), ("load.py", LOADERS, {6, 10})])
def test_float64_of_a_host_tensor_stays_on_the_host(
    tmp_path: Path, name: str, text: str, lines: set[int]
) -> None:
    report = audit_files(tmp_path, {f"pkg/{name}": text}, "mps")
    float64 = {int(f.location.rsplit(":", 1)[1]): f.rule for f in report.findings if "float64" in f.rule}
    assert float64 == dict.fromkeys(lines, "float64-on-host")
    assert report.verdict.risk == "lower"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("g.cpu().contiguous()", "g.contiguous()"),  # no move to the host before the cast
        ('map_location="cpu"', 'map_location="mps"'),
    ],
)
def test_float64_on_the_device_still_counts(tmp_path: Path, old: str, new: str) -> None:
    text = (GEM + LOADERS.replace("import torch\n", "")).replace(old, new)
    report = audit_files(tmp_path, {"pkg/mixed.py": text}, "mps")
    assert any(f.rule == "float64-on-mps" and f.risk == "moderate" for f in report.findings)
