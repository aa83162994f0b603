"""``python -m envsnap.guard script.py``, and ``envsnap.guard`` staying callable whatever is imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from envsnap.inprocess.guard.report import GuardReport
from envsnap.snapshot.yaml_text import load_yaml

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


def _refused(done: subprocess.CompletedProcess[str], message: str) -> None:
    """Exit 2, one error line at the end of stderr, no traceback, no report table."""
    assert done.returncode == 2, done.stderr
    assert done.stderr.endswith(f"envsnap: error: {message}\n"), done.stderr
    assert "Traceback" not in done.stderr
    assert "envsnap guard:" not in done.stderr
    assert done.stdout == ""


def test_a_script_that_does_not_exist_is_one_line_and_no_report(tmp_path: Path) -> None:
    done = _run(["--report", "guard.yaml", "missing.py"], tmp_path)
    _refused(done, "missing.py: cannot open: No such file or directory")
    assert done.stderr.count("\n") == 1  # nothing else: torch was never imported
    assert not (tmp_path / "guard.yaml").exists()


def test_a_module_that_does_not_exist_is_one_line(tmp_path: Path) -> None:
    done = _run(["-m", "no_such_module_envsnap"], tmp_path)
    _refused(
        done, "-m no_such_module_envsnap: no module named 'no_such_module_envsnap' (or it has no __main__)"
    )


def test_an_unknown_device_is_refused_before_the_script_runs(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("print('ran')\n", encoding="utf-8")
    done = _run(["--device", "bogus", "train.py"], tmp_path)
    assert done.returncode == 2
    last = done.stderr.splitlines()[-1]
    assert last.startswith("envsnap: error: --device bogus: not a device torch knows (Expected one of cpu, ")
    assert "Traceback" not in done.stderr
    assert "ran" not in done.stdout


@pytest.mark.parametrize("report", ["/proc/envsnap-guard.yaml", "."])
def test_an_unwritable_report_is_refused_before_the_script_runs(tmp_path: Path, report: str) -> None:
    (tmp_path / "train.py").write_text("open('started', 'w').close()\n", encoding="utf-8")
    done = _run(["--device", "meta", "--report", report, "train.py"], tmp_path)
    why = "is a directory; give a file name" if report == "." else "cannot write: No such file or directory"
    _refused(done, f"--report {report}: {why}")
    assert not (tmp_path / "started").exists()


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
        "@envsnap.guard\n"
        "def f(): return 1\n"
        "print(f(), type(f.guard).__name__)\n"
    )
    assert _python(code) == "Guard 2\n1 Guard"


def test_importing_the_guard_and_the_fallback_detector_does_not_import_torch() -> None:
    code = (
        "import sys, envsnap, envsnap.guard, envsnap.inprocess.guard\n"
        "import envsnap.live.fallback, envsnap.commands.live_terminal\n"
        "envsnap.guard\n"
        "print('torch' in sys.modules, 'textual' in sys.modules, 'rich' in sys.modules)\n"
    )
    assert _python(code) == "False False False"
