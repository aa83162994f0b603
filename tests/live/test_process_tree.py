"""Per-process CPU readings stay within what the process's threads and the machine's cores allow."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envsnap.live.fallback import run_workload
from envsnap.live.process_tree import ProcessTree, cap_cpu_percent, run_queue_delay_ns
from envsnap.live.run_report import Thresholds
from envsnap.live.sampler import Sampler
from tests.live.conftest import busy

# 50 ms samples: clock-tick (10 ms) granularity alone makes psutil read up to ~120% here.
NOISY = Thresholds(interval_s=0.05, cpu_busy_percent=25.0, sustain_s=0.5, gpu_idle_percent=5.0)


@pytest.mark.parametrize(
    ("reading", "threads", "previous", "cores", "capped"),
    [
        (119.5, 1, 1, 8, 100.0),  # the QA finding: one thread, read above one core
        (119.5, 1, 2, 8, 119.5),  # a second thread ran during the interval, then ended
        (350.0, 8, 8, 2, 200.0),  # more threads than cores: the machine is the limit
        (42.0, 1, None, 8, 42.0),  # plausible readings are untouched
        (900.0, None, None, 4, 400.0),  # thread count unknown: capped at the machine
    ],
)
def test_cap_cpu_percent(
    reading: float, threads: int | None, previous: int | None, cores: int, capped: float
) -> None:
    assert cap_cpu_percent(reading, threads, previous, cores) == capped


def test_a_single_threaded_busy_loop_never_reads_above_one_core(proc_root: Path) -> None:
    report = run_workload(busy(1.0), thresholds=NOISY, sampler=Sampler([]), proc_root=proc_root)

    assert report.samples >= 5
    worker = report.processes[0]
    assert worker.threads_max == 1
    assert 0.0 < worker.cpu_percent_max <= 100.0
    assert all(p.cpu_percent <= 100.0 for tick in report.timeline for p in tick.processes)
    assert report.cpu_percent_max is not None
    assert report.cpu_percent_max <= 100.0  # the tree is that one process


def _schedstat(root: Path, pid: int, tasks: dict[str, str]) -> None:
    for tid, text in tasks.items():
        (root / str(pid) / "task" / tid).mkdir(parents=True)
        (root / str(pid) / "task" / tid / "schedstat").write_text(text)


def test_run_queue_delay_sums_every_thread(tmp_path: Path) -> None:
    # /proc/<pid>/task/<tid>/schedstat: run time ns, run-queue wait ns, time slices.
    _schedstat(tmp_path, 42, {"42": "1000 250000000 7\n", "43": "5 750000000 2\n"})
    assert run_queue_delay_ns(42, tmp_path) == 1_000_000_000


def test_run_queue_delay_skips_garbled_threads_and_knows_when_it_knows_nothing(tmp_path: Path) -> None:
    _schedstat(tmp_path, 7, {"7": "12 300 1\n", "8": "garbage\n"})
    assert run_queue_delay_ns(7, tmp_path) == 300
    _schedstat(tmp_path, 9, {"9": ""})
    assert run_queue_delay_ns(9, tmp_path) is None  # unknown, not zero
    assert run_queue_delay_ns(12345, tmp_path) is None  # no such process


def test_the_tree_reports_the_wait_of_a_real_process_from_its_first_sample() -> None:
    if run_queue_delay_ns(os.getpid()) is None:
        pytest.skip("this kernel exposes no schedstat: the wait is unknown here, and says so")
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        tree = ProcessTree(child.pid)
        time.sleep(0.2)
        first = tree.sample()
        (reading,) = first.processes
        assert reading.wait_percent is not None  # primed at start, like the CPU reading
        assert reading.wait_percent >= 0.0
        assert first.wait_percent == reading.wait_percent
    finally:
        child.kill()
        child.wait()
