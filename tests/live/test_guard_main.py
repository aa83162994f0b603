"""``python -m envsnap.guard script.py``, and ``envsnap.guard`` staying callable whatever is imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from envsnap.live.guard_report import GuardReport
from envsnap.live.yaml_text import load_yaml

pytestmark = pytest.mark.slow

SCRIPT = """
import sys
import torch
from torch import nn
from helper import WIDTH  # a sibling module: the script's folder is on sys.path, as with `python script.py`

class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(WIDTH, 2)  # left on the CPU
    def forward(self, x):
        return self.proj(torch.ones(x.shape[0], WIDTH))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(WIDTH, WIDTH).to_empty(device="meta")
        self.head = Head()
    def forward(self, x):
        return self.body(x), self.head(x)

net = Net()
with torch.no_grad():
    net(torch.empty(3, WIDTH, device="meta"))
print("args", sys.argv[1:])
sys.exit(4)
"""


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envsnap.guard", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_wraps_a_whole_script_and_prints_the_report(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text("WIDTH = 4\n", encoding="utf-8")
    (tmp_path / "train.py").write_text(SCRIPT, encoding="utf-8")
    done = _run(["--device", "meta", "--report", "guard.yaml", "train.py", "--epochs", "1"], tmp_path)

    assert done.returncode == 4, done.stderr
    assert "args ['--epochs', '1']" in done.stdout
    assert "envsnap guard: expected device meta" in done.stderr
    report = load_yaml((tmp_path / "guard.yaml").read_text(encoding="utf-8"), GuardReport, "guard.yaml")
    off = {m.module for m in report.modules if m.off_device_ops}
    assert "head.proj" in off
    assert "body" not in off
    assert report.forwards_seen == 1


def test_strict_stops_the_script_with_the_module_path(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text("WIDTH = 4\n", encoding="utf-8")
    (tmp_path / "train.py").write_text(SCRIPT, encoding="utf-8")
    done = _run(["--device", "meta", "--strict", "train.py"], tmp_path)

    assert done.returncode == 1
    assert "OffDeviceError" in done.stderr
    assert "in module `head`" in done.stderr
    assert "args" not in done.stdout


def test_a_missing_script_is_a_usage_error(tmp_path: Path) -> None:
    assert _run([], tmp_path).returncode == 2


def _python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout.strip()


def test_envsnap_guard_stays_callable_after_importing_the_submodule() -> None:
    code = (
        "import envsnap.guard, envsnap\n"
        "g = envsnap.guard(device='meta', every=2)\n"
        "print(type(g).__name__, g.report.every)\n"
    )
    assert _python(code) == "Guard 2"


def test_importing_the_guard_and_the_fallback_detector_does_not_import_torch() -> None:
    code = (
        "import sys, envsnap, envsnap.guard, envsnap.live.guard\n"
        "import envsnap.live.fallback, envsnap.live.run_command\n"
        "envsnap.guard\n"
        "print('torch' in sys.modules, 'textual' in sys.modules, 'rich' in sys.modules)\n"
    )
    assert _python(code) == "False False False"
