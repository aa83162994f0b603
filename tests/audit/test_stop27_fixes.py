"""Fixes after measurement rounds 344-351 (#22, stop 27), each with the real files and a twin.

- poutyne 1.19.0 (round 346): ``torch.cuda.set_rng_state_all(states["cuda"])`` in its random-state
  checkpoint helpers read as a CUDA-only call that raises (*moderate* for *lower* on XPU and MPS). Setting a
  CUDA RNG state is queued until CUDA initialises (``_lazy_call``), and ``set_rng_state_all`` loops over the
  states that ``get_rng_state_all`` returned, none without CUDA: neither raises on a build without CUDA.
- DaisyRec 2.3 (round 214): ``self.device = 'cuda' if torch.cuda.is_available() else 'cpu'`` in its
  recommenders' constructor, and no function of the project takes a device: on an Intel or Apple GPU every
  model trains on the CPU until that line is edited (*lower* for *moderate* on XPU and MPS). Tried in stop 25
  without the second condition (37 cells wrong: TimesFM, BERTScore, LAION-CLAP take ``device=``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import torch

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.scanners.python import scan_python
from envsnap.audit.scanners.python_trigger import trigger_lines
from tests.audit.conftest import project


def _scan(text: str) -> list[str]:
    data = text.encode()
    return [s.subject for s in scan_python("m.py", text, trigger_lines(data))]


def test_setting_a_cuda_rng_state_does_not_raise_without_cuda() -> None:
    """The fact the rule rests on, on the installed torch (a CPU build in CI, a CUDA one elsewhere)."""
    torch.cuda.set_rng_state_all(torch.cuda.get_rng_state_all())  # raises here if it can raise
    if not torch.cuda.is_available():
        assert torch.cuda.get_rng_state_all() == []
        # queued for when CUDA initialises, which it never does here
        torch.cuda.set_rng_state(torch.zeros(16, dtype=torch.uint8))
        assert torch.cuda.device_count() == 0


def test_setting_rng_states_binds_nothing_reading_one_still_does() -> None:
    text = (
        "import torch\n"
        "def load(states):\n"
        "    torch.cuda.set_rng_state_all(states['cuda'])\n"
        "    torch.cuda.random.set_rng_state(states['cuda0'])\n"
        "def save():\n"
        "    return torch.cuda.get_rng_state()\n"
    )
    subjects = _scan(text)
    assert not any("set_rng_state" in s for s in subjects)
    assert "torch.cuda.get_rng_state" in subjects  # raises without CUDA: still a finding


def test_poutyne_follows_the_callers_device(tmp_path: Path) -> None:
    real = Path(project("real-poutyne"))
    for target in ("xpu", "mps"):
        report = audit(scan_tree(str(real)), None, parse_target(target))
        assert report.verdict.risk == "lower", target
        assert not any("utils.py:250" in f.location for f in report.findings)
    # The twin: the same helper beside a hard-coded device is still moderate, from that line only.
    (tmp_path / "utils.py").write_text((real / "poutyne/utils.py").read_text())
    (tmp_path / "train.py").write_text("import torch\nx = torch.zeros(1).to('cuda')\n")
    twin = audit(scan_tree(str(tmp_path)), None, parse_target("xpu"))
    assert twin.verdict.risk == "moderate"
    moderate = [f.location for f in twin.findings if f.risk == "moderate"]
    assert moderate == ["train.py:2"]


DAISY = "daisy/model/AbstractRecommender.py"


def _daisy_tree(root: Path) -> Path:
    (root / "daisy/model").mkdir(parents=True)
    shutil.copy(Path(project("real-daisyrec")) / DAISY, root / DAISY)
    return root


def test_a_cuda_or_cpu_pick_is_the_device_where_nothing_takes_one(tmp_path: Path) -> None:
    scanned = scan_tree(str(_daisy_tree(tmp_path)))
    for target in ("xpu", "mps"):
        report = audit(scanned, None, parse_target(target))
        assert report.verdict.risk == "moderate", target
        choice = next(f for f in report.findings if f.rule == "device-choices")
        assert choice.location == f"{DAISY}:100"
        assert "falls back to the CPU" in choice.meaning
    rocm = audit(scanned, None, parse_target("rocm:gfx942"))
    assert rocm.verdict.risk == "lower"  # 'cuda' is the AMD GPU under ROCm PyTorch


def test_a_device_parameter_anywhere_in_the_project_makes_the_pick_a_default(tmp_path: Path) -> None:
    root = _daisy_tree(tmp_path)
    (root / "daisy/predict.py").write_text(
        "import torch\n\ndef predict(model, batch,\n            device=torch.device('cpu')):\n"
        "    return model.to(device)(batch.to(device))\n"
    )
    report = audit(scan_tree(str(root)), None, parse_target("xpu"))
    assert report.verdict.risk == "lower"
    assert not any(f.rule == "device-choices" for f in report.findings)
    # A test's or an example's device parameter is not the project's API; a private helper's neither.
    (root / "daisy/predict.py").write_text("def _predict(model, device):\n    return model.to(device)\n")
    (root / "tests").mkdir()
    (root / "tests/test_fit.py").write_text("def test_fit(device='cpu'):\n    pass\n")
    os.mkfifo(root / "daisy/pipe.py")  # never opened: the walk lists it, the reader refuses it
    again = audit(scan_tree(str(root)), None, parse_target("xpu"))
    assert again.verdict.risk == "moderate"


def test_picks_that_are_not_the_codes_device_stay_silent(tmp_path: Path) -> None:
    cases = {
        # a setting the user chooses ("auto" beside the pick)
        "auto.py": "import torch\n\ndef pick(setting):\n    if setting == 'auto':\n"
        "        d = 'cuda' if torch.cuda.is_available() else 'cpu'\n        return torch.zeros(1).to(d)\n",
        # bound and never read
        "unused.py": "import torch\n\ndef f():\n    d = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "    return 1\n",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        report = audit(scan_tree(str(tmp_path)), None, parse_target("mps"))
        assert not any(f.rule == "device-choices" for f in report.findings), name
        (tmp_path / name).unlink()
    # The control: the same pick, bound and read, with no setting beside it.
    (tmp_path / "plain.py").write_text(
        "import torch\nd = 'cuda' if torch.cuda.is_available() else 'cpu'\nx = torch.zeros(1).to(d)\n"
    )
    report = audit(scan_tree(str(tmp_path)), None, parse_target("mps"))
    assert [f.location for f in report.findings if f.rule == "device-choices"] == ["plain.py:2"]
