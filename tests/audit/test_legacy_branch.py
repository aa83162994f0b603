"""The else of a torch-version test around torch's device-generic API is an older torch's path (#22 r. 61).

skrl 2.1's agents build their scaler as ``if version.parse(torch.__version__) >= version.parse("2.4"):
torch.amp.GradScaler(device=self._device_type, ...) else: torch.cuda.amp.GradScaler(...)``: every torch build
for Intel or Apple GPUs has ``torch.amp``, so the CUDA scaler never runs there; envsnap rated XPU *moderate*
for it. Twins: the same ``else`` under another test, or a version test whose body is no generic API, stays.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.conftest import audit_files

# skrl 2.1.1 skrl/agents/torch/ppo/ppo.py (trimmed: the mixed-precision set-up).
PPO = """\
import torch
from packaging import version


class PPO:
    def __init__(self, device, cfg):
        self.device = device
        self.cfg = cfg
        self._device_type = torch.device(self.device).type
        if version.parse(torch.__version__) >= version.parse("2.4"):
            self.scaler = torch.amp.GradScaler(device=self._device_type, enabled=self.cfg.mixed_precision)
        else:
            self.scaler = torch.cuda.amp.GradScaler(enabled=self.cfg.mixed_precision)
"""


def _scaler_risks(tmp_path: Path, text: str, target: str) -> set[str]:
    report = audit_files(tmp_path, {"skrl/agents/torch/ppo/ppo.py": text}, target)
    return {f.risk for f in report.findings if f.rule == "cuda-grad-scaler"}


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_the_cuda_scaler_of_an_older_torch_never_runs_there(tmp_path: Path, target: str) -> None:
    assert _scaler_risks(tmp_path, PPO, target) == {"lower"}


def test_twin_an_else_under_another_test_is_a_path(tmp_path: Path) -> None:
    text = PPO.replace('version.parse(torch.__version__) >= version.parse("2.4")', "self.cfg.new_scaler")
    assert "moderate" in _scaler_risks(tmp_path, text, "xpu")


def test_twin_a_version_test_without_the_generic_api(tmp_path: Path) -> None:
    text = PPO.replace("torch.amp.GradScaler(device=self._device_type,", "make_scaler(")
    assert "moderate" in _scaler_risks(tmp_path, text, "xpu")


def test_a_huge_version_test(tmp_path: Path) -> None:
    test = " and ".join(['version.parse(torch.__version__) >= version.parse("2.4")'] * 3_000)
    text = PPO.replace('version.parse(torch.__version__) >= version.parse("2.4")', test)
    assert _scaler_risks(tmp_path, text, "xpu") == {"lower"}
