"""A deterministic ``envsnap run`` report, for screenshots: fixed samples through the real verdict code.

The GPU side is the recorded Tesla T4 (tests/data/nvidia, see tests/data/SOURCES.md): 0%
utilization, 1.0 GiB used by the capture's own processes (Xorg and another python), none of them
the workload, so attribution is ``absent``. The process side is a fixed series (a Python job
starting up, then saturating a core, a worker joining it) instead of a measured one, so the
picture never changes between runs. The verdict, sentence and evidence come from envsnap's own
Detector and ``build_report``, as in ``envsnap run``.
"""

from __future__ import annotations

from datetime import timedelta

from envsnap.live.monitor import LiveState
from envsnap.live.run_report import (
    DeviceSummary,
    GpuTick,
    ProcessSummary,
    ProcessTick,
    RunReport,
    Thresholds,
    Tick,
)
from envsnap.live.run_summary import RunFacts, build_report
from envsnap.live.verdict import Detector, Observation
from tests.fakes.fake_telemetry import nvidia_host
from tests.fakes.workload_gpu import IDLE_T4

ROOT_PID, WORKER_PID = 31270, 31288
ROOT_CPU_PERCENT = (23.0, 61.0, 97.0, 99.0, 100.0, 99.0, 98.0, 100.0, 99.0, 97.0, 100.0, 99.0)
"""The job's main process: imports, then one core busy (100 = one core)."""
WORKER_CPU_PERCENT = (0.0, 0.0, 0.0, 0.0, 12.0, 31.0, 30.0, 29.0, 33.0, 30.0, 31.0, 32.0)
"""A data-loading worker started at the fifth sample."""
RSS_BYTES = 412 * 1024**2
THRESHOLDS = Thresholds(interval_s=1.0, cpu_busy_percent=90.0, sustain_s=5.0, gpu_idle_percent=5.0)


def fallback_on_t4() -> RunReport:
    """A CPU-fallback run beside the recorded, idle Tesla T4: verdict ``cpu-fallback-suspected``."""
    host = nvidia_host(IDLE_T4)
    gpu = host.devices[0]
    state = LiveState(detector=Detector(THRESHOLDS), attribution="absent")
    readings = zip(ROOT_CPU_PERCENT, WORKER_CPU_PERCENT, strict=True)
    for number, (root_cpu, worker_cpu) in enumerate(readings, 1):
        t_s = float(number)
        processes = [ProcessTick(pid=ROOT_PID, cpu_percent=root_cpu, rss_bytes=RSS_BYTES, threads=9)]
        if worker_cpu:
            processes.append(ProcessTick(pid=WORKER_PID, cpu_percent=worker_cpu, rss_bytes=RSS_BYTES // 4))
        cpu = sum(p.cpu_percent for p in processes)
        tick = Tick(
            t_s=t_s,
            cpu_percent=cpu,
            rss_bytes=sum(p.rss_bytes or 0 for p in processes),
            threads=9 + len(processes) - 1,
            processes=tuple(processes),
            gpus=(
                GpuTick(
                    vendor=gpu.vendor,
                    index=gpu.index,
                    util_percent=gpu.gpu_util_percent,
                    memory_used_bytes=gpu.memory_used_bytes,
                ),
            ),
            on_gpu=False,
        )
        state.detector.update(
            Observation(
                t_s=t_s,
                cpu_percent=cpu,
                attribution="absent",
                held_utils=(),
                all_utils=(gpu.gpu_util_percent,),
            )
        )
        state.timeline.append(tick)
        state.last = tick
        state.seen += 1
        state.cpu_sum += cpu
        state.cpu_max = max(state.cpu_max, cpu)
        state.rss_max = max(state.rss_max, tick.rss_bytes)
        for process in processes:
            old = state.processes.get(process.pid)
            state.processes[process.pid] = ProcessSummary(
                pid=process.pid,
                name="python3",
                first_seen_s=old.first_seen_s if old else t_s,
                last_seen_s=t_s,
                cpu_percent_max=max(process.cpu_percent, old.cpu_percent_max if old else 0.0),
                rss_max_bytes=process.rss_bytes,
            )
    state.detector.finish()
    state.devices[(gpu.vendor, gpu.index)] = DeviceSummary(
        vendor=gpu.vendor,
        index=gpu.index,
        name=gpu.name,
        memory_total_bytes=gpu.memory_total_bytes,
        util_percent_max=gpu.gpu_util_percent,
    )
    stamp = "%Y-%m-%dT%H:%M:%S.000Z"
    facts = RunFacts(
        mode="run",
        pid=ROOT_PID,
        command=("python", "train.py", "--epochs", "3"),
        started_at=host.captured_at.strftime(stamp),
        ended_at=(host.captured_at + timedelta(seconds=13)).strftime(stamp),
        duration_s=12.6,
        exit_code=0,
    )
    return build_report(facts, state, THRESHOLDS, expect=None, has_sources=True)
