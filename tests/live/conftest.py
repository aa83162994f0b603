"""Workloads and thresholds for the CPU-fallback tests: real child processes, short windows.

The thresholds are the production logic with test-sized numbers: samples every 0.1 s, a 0.5 s
sustain window, and CPU-bound from 25% of a core (a busy loop on a loaded 2-core CI machine
still gets far more; an idle sleeper gets ~0%).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from envsnap.live.run_report import Thresholds

FAST = Thresholds(interval_s=0.1, cpu_busy_percent=25.0, sustain_s=0.5, gpu_idle_percent=5.0)


def busy(seconds: float, exit_code: int = 0) -> list[str]:
    """A Python child that keeps one core busy for ``seconds`` and exits with ``exit_code``."""
    code = (
        f"import sys, time\nend = time.monotonic() + {seconds}\n"
        f"while time.monotonic() < end:\n    pass\nsys.exit({exit_code})\n"
    )
    return [sys.executable, "-c", code]


def sleeper(seconds: float) -> list[str]:
    """A Python child that sleeps (about 0% CPU)."""
    return [sys.executable, "-c", f"import time; time.sleep({seconds})"]


def fake_proc(root: Path, pids: tuple[int, ...] = (), nspid: tuple[int, ...] = (4242,)) -> Path:
    """A minimal /proc: ``<pid>/`` folders for the given PIDs, and ``self/status`` with NSpid."""
    for pid in pids:
        (root / str(pid)).mkdir(parents=True, exist_ok=True)
    (root / "self").mkdir(parents=True, exist_ok=True)
    levels = "\t".join(str(p) for p in nspid)
    (root / "self" / "status").write_text(f"Name:\tpython\nNSpid:\t{levels}\n", encoding="utf-8")
    return root


@pytest.fixture
def proc_root(tmp_path: Path) -> Path:
    """A /proc where no GPU process of the captures exists (as inside a container)."""
    return fake_proc(tmp_path / "proc")
