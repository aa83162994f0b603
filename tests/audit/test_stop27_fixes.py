"""Fixes after measurement rounds 344-351 (#22, stop 27), each with the real files and a twin.

- poutyne 1.19.0 (round 346): ``torch.cuda.set_rng_state_all(states["cuda"])`` in its random-state
  checkpoint helpers read as a CUDA-only call that raises (*moderate* for *lower* on XPU and MPS). Setting a
  CUDA RNG state is queued until CUDA initialises (``_lazy_call``), and ``set_rng_state_all`` loops over the
  states that ``get_rng_state_all`` returned, none without CUDA: neither raises on a build without CUDA.
"""

from __future__ import annotations

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
    assert torch.cuda.set_rng_state_all(torch.cuda.get_rng_state_all()) is None
    if not torch.cuda.is_available():
        assert torch.cuda.get_rng_state_all() == []
        # queued for when CUDA initialises, which it never does here
        assert torch.cuda.set_rng_state(torch.zeros(16, dtype=torch.uint8)) is None
        assert not torch.cuda.is_initialized()


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
