"""Workloads and thresholds for the CPU-fallback tests: real child processes, short windows.

The thresholds are the production logic with test-sized numbers: samples every 0.1 s, a 0.5 s
sustain window, and CPU-bound from 5% of a core. The tests must not depend on the share of a core a
busy loop gets on a shared machine (at a load of 8 on 2 cores it may get 20%, less in some 0.1 s
samples), so the bar is far below any share a running loop gets and far above the 0% of an idle
sleeper. Tests compare structure (which process, which window, which verdict), never two CPU%.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from envsnap.live.monitor import LiveState
from envsnap.live.run_report import Thresholds

FAST = Thresholds(interval_s=0.1, cpu_busy_percent=5.0, sustain_s=0.5, gpu_idle_percent=5.0)


def busy(seconds: float, exit_code: int = 0) -> list[str]:
    """A Python child that keeps one core busy for ``seconds`` and exits with ``exit_code``."""
    code = (
        f"import sys, time\nend = time.monotonic() + {seconds}\n"
        f"while time.monotonic() < end:\n    pass\nsys.exit({exit_code})\n"
    )
    return [sys.executable, "-c", code]


def busy_until(stop: Path, limit_s: float = 60.0) -> list[str]:
    """A Python child that keeps one core busy until ``stop`` exists (or ``limit_s`` passed)."""
    code = (
        f"import os, time\nend = time.monotonic() + {limit_s}\n"
        f"while time.monotonic() < end and not os.path.exists({str(stop)!r}):\n"
        "    for _ in range(10000):\n        pass\n"
    )
    return [sys.executable, "-c", code]


class StopWhenJudged:
    """``on_tick``: ends a ``busy_until`` workload once the monitor has seen it busy for long enough.

    How long a workload must run for a verdict depends on how often the (lowered-priority)
    sampler gets the CPU, which on a loaded machine may be every half second instead of every
    0.1 s. So the workload doesn't run for a fixed time: it runs until the last samples, all at or
    above the CPU bar, span twice the sustain window (and at least ``min_samples`` were taken).
    """

    def __init__(self, stop: Path, thresholds: Thresholds = FAST, min_samples: int = 5) -> None:
        self.stop = stop
        self.thresholds = thresholds
        self.min_samples = min_samples

    def __call__(self, state: LiveState) -> None:
        busy_ticks = []
        for tick in reversed(state.timeline):
            if tick.cpu_percent < self.thresholds.cpu_busy_percent:
                break
            busy_ticks.append(tick)
        if (
            state.seen >= self.min_samples
            and len(busy_ticks) >= 2
            and busy_ticks[0].t_s - busy_ticks[-1].t_s >= 2 * self.thresholds.sustain_s
        ):
            self.stop.touch()


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
