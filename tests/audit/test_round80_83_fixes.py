"""Fixes after measurement rounds 80-83 (#22): one extra is a feature, a switch only ever False, NVIDIA Warp.

- fair-esm 2.0's METADATA declares every requirement under ``extra == 'esmfold'``; "every requirement is an
  extra's" was read as install flavours (ipex-llm's ``[xpu]``/``[all]``), so DeepSpeed counted as core:
  *moderate* on XPU and MPS for *lower* (round 81).
- torch-rechub 0.9's TIGER sets ``self.model_parallel = False`` and never anything else, then keeps Hugging
  Face T5's ``if self.model_parallel: torch.cuda.set_device(...)`` branches: dead code, read as the path
  (*moderate* on XPU for *lower*, round 80).
- torchmd-net 3.1's neighbor list and TensorNet ops are NVIDIA Warp kernels (``import warp as wp``,
  ``warp-lang`` required): Warp compiles for the CPU or CUDA only, and no row said so (*moderate* for *higher*
  on all three, round 81).
Twins: several extras stay flavours; an attribute also set True, or taken from a parameter, stays a switch;
Warp in an extra is optional.
"""

from __future__ import annotations

from pathlib import Path

from envsnap.audit.scanners.build import scan_metadata
from envsnap.audit.scanners.python_shapes import false_attribute
from tests.audit.conftest import audit_files

ESM_METADATA = """\
Metadata-Version: 2.1
Name: fair-esm
Version: 2.0.0
Requires-Dist: biopython ; extra == 'esmfold'
Requires-Dist: deepspeed (==0.5.9) ; extra == 'esmfold'
Requires-Dist: dm-tree ; extra == 'esmfold'

Evolutionary Scale Modeling
"""


def _optional(text: str) -> dict[str, bool]:
    return {
        s.subject: "optional=1" in s.detail for s in scan_metadata("METADATA", text) if s.kind != "declared"
    }


def test_a_single_extra_is_a_feature_not_a_flavour() -> None:
    assert _optional(ESM_METADATA) == {"deepspeed": True}


def test_twin_several_extras_are_the_install_flavours() -> None:
    flavours = ESM_METADATA.replace(
        "Requires-Dist: dm-tree ; extra == 'esmfold'\n", "Requires-Dist: dm-tree ; extra == 'cpu'\n"
    )
    assert _optional(flavours) == {"deepspeed": False}


def test_a_single_extra_leaves_the_core_lower(tmp_path: Path) -> None:
    files = {"fair_esm-2.0.0.dist-info/METADATA": ESM_METADATA, "esm/model.py": "import torch\n"}
    assert audit_files(tmp_path, files, "xpu").verdict.risk == "lower"


# torch-rechub 0.9.0 torch_rechub/models/generative/tiger.py (trimmed).
TIGER = """\
import torch
from transformers import T5ForConditionalGeneration


class TIGERModel(T5ForConditionalGeneration):
    def __init__(self, config):
        super().__init__(config)
        self.model_parallel = False

    def forward(self, hidden_states):
        if self.model_parallel:
            torch.cuda.set_device(self.encoder.first_device)
            hidden_states = hidden_states.to(self.encoder.first_device)
        return hidden_states
"""


def _cuda_risks(tmp_path: Path, text: str) -> list[str]:
    report = audit_files(tmp_path, {"torch_rechub/models/generative/tiger.py": text}, "xpu")
    return [f.risk for f in report.findings if f.rule == "torch-cuda-api"]


def test_a_switch_only_ever_false_is_dead_code(tmp_path: Path) -> None:
    assert _cuda_risks(tmp_path, TIGER) == ["lower"]


def test_twin_a_switch_turned_on_elsewhere_is_the_path(tmp_path: Path) -> None:
    turned_on = TIGER + "\n    def parallelize(self):\n        self.model_parallel = True\n"
    assert _cuda_risks(tmp_path, turned_on) == ["moderate"]


def test_false_attribute_reader() -> None:
    text = (
        "self.a = False\nself.b = False\nself.b = True\nself.c = False\nf(c=1)\n"
        "self.d = False\nclass K:\n    d: bool = True\nself.e = False\nself.e |= x\n"
        "self.g  =  False\nself.g = flag\n"
    )
    assert [name for name in "abcdefg" if false_attribute(text, name)] == ["a"]
    # Hostile: huge, escaped and marked-up lines are read as text, never raise; a name is an identifier.
    hostile = "self.x = False\n" + "self.\x1b[2J = False\n" + "[bold]self.y = False[/bold]\n" + "z" * 100_000
    assert [name for name in ("x", "y", "\x1b[2J", "(.*)") if false_attribute(hostile, name)] == ["x", "y"]


# torchmd-net 3.1.0 torchmdnet/extensions/warp_ops/neighbors.py (trimmed) and its pyproject dependencies.
NEIGHBORS = """\
import torch
import warp as wp


@wp.kernel
def count_pairs(pos: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = 1


def get_neighbor_pairs(pos):
    out = torch.zeros(pos.shape[0], dtype=torch.int32, device=pos.device)
    wp.launch(count_pairs, dim=pos.shape[0], inputs=[wp.from_torch(pos)], outputs=[wp.from_torch(out)])
    return out
"""
PYPROJECT = """\
[project]
name = "torchmd-net"
dependencies = ["torch", "warp-lang>=1.10.1"]
"""


def test_warp_kernels_are_higher_off_nvidia(tmp_path: Path) -> None:
    files = {"pyproject.toml": PYPROJECT, "torchmdnet/extensions/warp_ops/neighbors.py": NEIGHBORS}
    for target in ("rocm:gfx942", "xpu", "mps"):
        report = audit_files(tmp_path / target.replace(":", "-"), files, target)
        assert report.verdict.risk == "higher", target
        assert any("Warp's only GPU backend is CUDA" in f.meaning for f in report.findings)
    assert audit_files(tmp_path / "cpu", files, "cpu").verdict.risk == "lower"


def test_twin_warp_in_an_extra_is_optional(tmp_path: Path) -> None:
    extra = PYPROJECT.replace('"torch", "warp-lang>=1.10.1"]', '"torch"]\n[project.optional-dependencies]\n')
    extra += 'warp = ["warp-lang>=1.10.1"]\n'
    guarded = NEIGHBORS.replace(
        "import warp as wp\n", "try:\n    import warp as wp\nexcept ImportError:\n    wp = None\n"
    )
    files = {"pyproject.toml": extra, "torchmdnet/extensions/warp_ops/neighbors.py": guarded}
    assert audit_files(tmp_path, files, "xpu").verdict.risk != "higher"


# Cellpose 4.0 cellpose/gui/guiparts.py (a pyqtgraph mouse handler, trimmed): noticed in round 56.
GUI = """\
from qtpy import QtCore


class ImageDraw:
    def mouseClickEvent(self, ev, is_right_click):
        shift = ev.modifiers() & QtCore.Qt.ShiftModifier
        if self.parent.masksOn and (is_right_click or shift and not ev.double()):
            self.remove_cell(ev.pos())
        if ev.button() == QtCore.Qt.LeftButton and not ev.double():
            self.create_start(ev.pos())
"""


def test_a_double_click_test_is_no_float64() -> None:
    from envsnap.audit.scanners.python import scan_python

    assert [s for s in scan_python("cellpose/gui/guiparts.py", GUI, None) if s.kind == "float64"] == []
    cast = GUI + "        weights = self.weights.double()\n"
    found = scan_python("cellpose/gui/guiparts.py", cast, None)
    assert [s.line for s in found if s.kind == "float64"] == [11]
