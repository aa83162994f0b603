"""``run_workload``/``watch_process`` end to end: real child processes, recorded GPUs, real verdicts."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from envsnap.errors import BadInput
from envsnap.live.fallback import run_workload, watch_process
from envsnap.live.monitor import LiveState, lower_priority
from envsnap.live.run_report import load_run_report, save_run_report
from envsnap.live.sampler import Sampler
from tests.fakes.workload_gpu import BUSY_V100, IDLE_T4, sampler
from tests.live.conftest import FAST, StopWhenJudged, busy, busy_until, fake_proc, sleeper

T4_PIDS = (675, 5762)
T4_PYTHON_BYTES = 1053818880
"""The capture's python process holds 1005 MiB on the T4."""
V100_FIRST_WORKER_BYTES = 3370123264


class Child:
    """Remembers the workload's PID so a recorded GPU can list it."""

    def __init__(self) -> None:
        self.pid: int | None = None

    def started(self, pid: int) -> None:
        self.pid = pid

    def claim(self) -> int | None:
        return self.pid


def test_cpu_bound_child_beside_an_idle_gpu_is_cpu_fallback_suspected(tmp_path: Path) -> None:
    # The T4's own processes are visible here, so "none of them is ours" is a sure answer.
    root = fake_proc(tmp_path / "proc", pids=T4_PIDS)
    gpu_sampler, source = sampler(IDLE_T4)
    child = Child()
    stop = tmp_path / "stop"
    report = run_workload(
        busy_until(stop),
        thresholds=FAST,
        sampler=gpu_sampler,
        proc_root=root,
        on_start=child.started,
        on_tick=StopWhenJudged(stop),
    )

    assert report.verdict == "cpu-fallback-suspected"
    assert report.attribution == "absent"
    assert "held no GPU memory" in report.summary
    assert report.windows is not None
    window = report.windows[0]
    assert window.kind == "cpu-fallback-suspected"
    assert window.end_s - window.start_s >= FAST.sustain_s
    # What it used plus what it waited for: a shared machine may give the loop far less than a core.
    assert window.cpu_percent_mean + (window.cpu_wait_percent_mean or 0.0) >= FAST.cpu_busy_percent
    assert window.gpu_util_percent_max == 0.0
    assert report.exit_code == 0
    assert report.devices is not None
    assert report.devices[0].name == "Tesla T4"
    assert [p.pid for p in report.processes] == [child.pid]
    assert report.timeline
    assert all(tick.gpus[0].util_percent == 0.0 and tick.on_gpu is False for tick in report.timeline)
    assert any("none of them is in the tree" in line for line in report.evidence)
    assert source.reads >= 5
    assert source.closed


def test_no_gpu_backend_is_no_accelerator_with_the_reason(proc_root: Path) -> None:
    def why() -> tuple[str, ...]:
        return ("NVIDIA: NVIDIA driver not installed (libnvidia-ml.so.1 not found)",)

    report = run_workload(busy(0.6), thresholds=FAST, sampler=Sampler([]), proc_root=proc_root, explain=why)

    assert report.verdict == "no-accelerator"
    assert report.attribution == "no-gpu"
    assert "nothing to fall back from" in report.summary
    assert report.devices is None
    assert report.cpu_percent_max is not None
    assert report.cpu_percent_max >= FAST.cpu_busy_percent
    assert report.evidence[-1] == "NVIDIA: NVIDIA driver not installed (libnvidia-ml.so.1 not found)"


def test_child_listed_on_a_busy_gpu_is_gpu_active(proc_root: Path) -> None:
    child = Child()
    gpu_sampler, _ = sampler(BUSY_V100, claim=child.claim)
    report = run_workload(
        sleeper(0.8), thresholds=FAST, sampler=gpu_sampler, proc_root=proc_root, on_start=child.started
    )

    assert report.verdict == "gpu-active"
    assert report.attribution == "found"
    assert report.devices is not None
    assert report.devices[0].tree_memory_max_bytes == V100_FIRST_WORKER_BYTES
    assert report.devices[0].util_percent_max == 91.0
    assert any(tick.on_gpu for tick in report.timeline)
    assert report.summary.startswith("GPU active: the workload held 3.1 GiB of GPU memory")


def test_child_holding_an_idle_gpu_while_cpu_bound_is_gpu_idle_while_busy(
    proc_root: Path, tmp_path: Path
) -> None:
    child = Child()
    gpu_sampler, _ = sampler(IDLE_T4, claim=child.claim)
    stop = tmp_path / "stop"
    report = run_workload(
        busy_until(stop),
        thresholds=FAST,
        sampler=gpu_sampler,
        proc_root=proc_root,
        on_start=child.started,
        on_tick=StopWhenJudged(stop),
    )

    assert report.verdict == "gpu-idle-while-busy"
    assert report.attribution == "found"
    assert report.windows is not None
    assert report.windows[0].kind == "gpu-idle-while-busy"
    assert report.devices is not None
    assert report.devices[0].tree_memory_max_bytes == T4_PYTHON_BYTES
    assert "holds 1005.0 MiB of GPU memory" in report.summary


def test_host_pids_from_a_container_make_attribution_uncertain_not_fallback(proc_root: Path) -> None:
    # The V100's workers are not in this (fake) PID namespace: the driver reports host PIDs.
    gpu_sampler, _ = sampler(BUSY_V100)
    report = run_workload(busy(1.0), thresholds=FAST, sampler=gpu_sampler, proc_root=proc_root)

    assert report.attribution == "uncertain"
    assert report.attribution_reason is not None
    assert "4027538" in report.attribution_reason
    assert "--pid=host" in report.attribution_reason
    # A busy GPU that might be ours is not called a fallback.
    assert report.verdict == "gpu-active"
    assert "can't be told" in report.summary


def test_short_idle_run_is_inconclusive(tmp_path: Path) -> None:
    gpu_sampler, _ = sampler(IDLE_T4)
    report = run_workload(
        sleeper(0.5),
        thresholds=FAST,
        sampler=gpu_sampler,
        proc_root=fake_proc(tmp_path / "proc", pids=T4_PIDS),
    )

    assert report.verdict == "inconclusive"
    assert report.windows is None


def test_expecting_another_backend_counts_no_device(proc_root: Path) -> None:
    gpu_sampler, _ = sampler(IDLE_T4)
    report = run_workload(busy(0.3), thresholds=FAST, expect="rocm", sampler=gpu_sampler, proc_root=proc_root)

    assert report.verdict == "no-accelerator"
    assert report.expect == "rocm"
    assert "no rocm device (amd)" in report.summary


def test_exit_status_and_signal_pass_through(proc_root: Path) -> None:
    assert (
        run_workload(
            busy(0.1, exit_code=3), thresholds=FAST, sampler=Sampler([]), proc_root=proc_root
        ).exit_code
        == 3
    )
    killed = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"]
    report = run_workload(killed, thresholds=FAST, sampler=Sampler([]), proc_root=proc_root)
    assert (report.exit_code, report.signal) == (143, "SIGTERM")


def test_grandchildren_count_in_the_tree(tmp_path: Path) -> None:
    # Structure, not CPU shares: on a loaded machine the launcher's start-up can out-read the worker.
    # The worker writes its own PID and its parent's, so the test knows which process is the grandchild.
    ids, stop = tmp_path / "worker-ids", tmp_path / "stop"
    inner = [
        sys.executable,
        "-c",
        f"import os; open({str(ids)!r}, 'w').write(f'{{os.getpid()}} {{os.getppid()}}')\n"
        f"while not os.path.exists({str(stop)!r}):\n    pass\n",
    ]
    launcher = [sys.executable, "-c", f"import subprocess; subprocess.run({inner!r}, timeout=60)"]

    def stop_once_both_were_seen(state: LiveState) -> None:
        if state.last is not None and len(state.last.processes) == 2 and state.seen >= 3:
            stop.touch()

    gpu_sampler, _ = sampler(IDLE_T4)
    report = run_workload(
        launcher,
        thresholds=FAST,
        sampler=gpu_sampler,
        proc_root=fake_proc(tmp_path / "p", pids=T4_PIDS),
        on_tick=stop_once_both_were_seen,
    )

    worker_pid, worker_parent = (int(n) for n in ids.read_text(encoding="utf-8").split())
    assert worker_parent == report.pid  # the worker is a grandchild of envsnap: the launcher's child
    assert {p.pid for p in report.processes} == {report.pid, worker_pid}
    worker = next(p for p in report.processes if p.pid == worker_pid)
    assert worker.cpu_percent_max > 0.0  # it was sampled while it ran
    both = [tick for tick in report.timeline if {p.pid for p in tick.processes} == {report.pid, worker_pid}]
    assert both, "no sample saw the launcher and its child together"
    for tick in report.timeline:  # the tree's CPU is the sum over its members, grandchild included
        assert tick.cpu_percent == pytest.approx(sum(p.cpu_percent for p in tick.processes), abs=0.2)
    assert report.cpu_percent_max is not None
    assert report.cpu_percent_max >= worker.cpu_percent_max


def test_report_round_trips_through_yaml(proc_root: Path, tmp_path: Path) -> None:
    child = Child()
    gpu_sampler, _ = sampler(IDLE_T4, claim=child.claim)
    report = run_workload(
        busy(0.8), thresholds=FAST, sampler=gpu_sampler, proc_root=proc_root, on_start=child.started
    )
    (tmp_path / "runs").mkdir()
    path = save_run_report(report, tmp_path / "runs" / "r.yaml")

    text = path.read_text(encoding="utf-8")
    assert text.startswith("# envsnap run report (schema 1)")
    assert text.splitlines()[1] == "report: envsnap-run"
    assert load_run_report(path) == report
    assert not list((tmp_path / "runs").glob("*.partial"))


def test_unknown_command_is_bad_input(proc_root: Path) -> None:
    with pytest.raises(BadInput, match="no-such-command-envsnap: command not found"):
        run_workload(["no-such-command-envsnap"], thresholds=FAST, sampler=Sampler([]), proc_root=proc_root)
    with pytest.raises(BadInput, match="no command given"):
        run_workload([], thresholds=FAST, sampler=Sampler([]), proc_root=proc_root)


def test_watch_follows_a_running_process_until_it_exits(proc_root: Path, tmp_path: Path) -> None:
    stop = tmp_path / "stop"
    proc = subprocess.Popen(busy_until(stop))
    try:
        gpu_sampler, _ = sampler(IDLE_T4, claim=lambda: proc.pid)
        report = watch_process(
            proc.pid, thresholds=FAST, sampler=gpu_sampler, proc_root=proc_root, on_tick=StopWhenJudged(stop)
        )
    finally:
        proc.wait()
    assert report.mode == "watch"
    assert report.exit_code is None
    assert report.interrupted is False
    assert report.command is not None
    assert report.command[0] == sys.executable
    assert report.verdict == "gpu-idle-while-busy"


def test_watch_stops_when_asked(proc_root: Path) -> None:
    proc = subprocess.Popen(sleeper(30))
    stop = threading.Event()
    timer = threading.Timer(0.4, stop.set)
    timer.start()
    try:
        report = watch_process(proc.pid, thresholds=FAST, sampler=Sampler([]), proc_root=proc_root, stop=stop)
    finally:
        proc.kill()
        proc.wait()
        timer.cancel()
    assert report.interrupted is True
    assert report.duration_s < 5


def test_watch_of_a_missing_process_is_bad_input() -> None:
    proc = subprocess.Popen(sleeper(0))
    proc.wait()
    with pytest.raises(BadInput, match=f"no process with PID {proc.pid}"):
        watch_process(proc.pid, sampler=Sampler([]))


def test_watching_an_ancestor_leaves_envsnap_itself_out(proc_root: Path) -> None:
    # Our own parent's tree contains this very process; it must not count as the workload.
    stop = threading.Event()
    timer = threading.Timer(0.5, stop.set)
    timer.start()
    try:
        report = watch_process(
            os.getppid(), thresholds=FAST, sampler=Sampler([]), proc_root=proc_root, stop=stop
        )
    finally:
        timer.cancel()
    assert report.samples >= 2
    assert os.getpid() not in {p.pid for p in report.processes}
    assert all(os.getpid() not in {p.pid for p in tick.processes} for tick in report.timeline)


def test_envsnap_threads_yield_the_cpu_to_the_workload() -> None:
    seen: list[int] = []

    def sampler_thread() -> None:
        lower_priority()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    before = os.getpriority(os.PRIO_PROCESS, 0)
    thread = threading.Thread(target=sampler_thread)
    thread.start()
    thread.join()
    assert seen == [19 if sys.platform == "linux" else before]
    assert (
        os.getpriority(os.PRIO_PROCESS, 0) == before
    )  # the main thread, which starts the workload, keeps its own
