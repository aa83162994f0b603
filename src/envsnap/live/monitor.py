"""The sampling loop behind ``envsnap run`` and ``watch``: one background thread, one shared Sampler.

Each tick reads the process tree (psutil) and every device (the shared ``live.sampler.Sampler``),
attributes GPU memory to the tree, feeds the verdict detector and appends to the timeline. The
next tick is scheduled only after the previous one returned, so a hung driver call delays
sampling but never piles up threads; ``stop()`` gives up waiting after a deadline, and the report
is built from what was collected.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from envsnap.live.attribution import holding, nested_pid_namespace
from envsnap.live.process_tree import ProcessTree, TreeReading
from envsnap.live.run_report import (
    Attribution,
    DeviceSummary,
    Expect,
    GpuTick,
    ProcessSummary,
    ProcessTick,
    Thresholds,
    Tick,
)
from envsnap.live.sampler import Sampler
from envsnap.live.verdict import Detector, Observation
from envsnap.snapshot.model import DeviceSample, Vendor

MAX_TIMELINE = 3600
"""Most timeline points kept; past it every other point is dropped and the stride doubles."""

EXPECT_VENDOR: dict[str, Vendor] = {"cuda": "nvidia", "rocm": "amd", "xpu": "intel", "mps": "mps"}

_ATTRIBUTION_RANK: dict[Attribution, int] = {
    "found": 4,
    "uncertain": 3,
    "unavailable": 2,
    "absent": 1,
    "no-gpu": 0,
}


@dataclass
class LiveState:
    """What the loop has gathered so far; read under ``Monitor.lock``."""

    detector: Detector
    timeline: list[Tick] = field(default_factory=list)
    stride: int = 1
    seen: int = 0
    processes: dict[int, ProcessSummary] = field(default_factory=dict)
    devices: dict[tuple[str, int], DeviceSummary] = field(default_factory=dict)
    attribution: Attribution = "no-gpu"
    attribution_reason: str | None = None
    sampler_errors: list[str] = field(default_factory=list)
    cpu_sum: float = 0.0
    cpu_max: float = 0.0
    rss_max: int = 0
    last: Tick | None = None


class Monitor:
    """Samples a process tree and the GPUs on a background thread until stopped.

    Args:
        tree: the process tree to watch.
        sampler: the shared telemetry sampler (``live.sources.default_sampler()``; fakes in tests).
        thresholds: sampling interval and verdict thresholds.
        expect: only count devices of this backend (``cuda`` = NVIDIA, ``rocm`` = AMD, ...).
        proc_root: ``/proc``, for the PID-namespace check (a fake tree in tests).
        on_tick: called after every sample with the state (under the lock), e.g. a status line.
    """

    def __init__(
        self,
        tree: ProcessTree,
        sampler: Sampler,
        thresholds: Thresholds,
        *,
        expect: Expect | None = None,
        proc_root: Path = Path("/proc"),
        on_tick: Callable[[LiveState], None] | None = None,
    ) -> None:
        self.tree = tree
        self.sampler = sampler
        self.thresholds = thresholds
        self.expect = expect
        self.proc_root = proc_root
        self.on_tick = on_tick
        self.lock = threading.Lock()
        self.state = LiveState(detector=Detector(thresholds))
        self._nested = nested_pid_namespace(proc_root)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="envsnap-monitor", daemon=True)
        self._t0 = time.monotonic()

    def start(self) -> None:
        """Start sampling on the background thread.

        The thread first reads the devices once (so even a workload that ends at once is judged
        against them); the first tree sample follows one interval later, because psutil measures
        CPU between two calls.
        """
        self._t0 = time.monotonic()
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop sampling and close the open verdict streak (waits at most ``timeout_s`` for a hung read)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)
        with self.lock:
            self.state.detector.finish()

    @property
    def has_sources(self) -> bool:
        """Whether any telemetry backend opened on this host."""
        return bool(self.sampler.sources)

    def _loop(self) -> None:
        lower_priority()
        if self.sampler.sources:
            first = self.sampler.sample()
            with self.lock:
                self._accumulate_devices(self.state, self._relevant(first.devices), {})
        interval = max(0.0, self.thresholds.interval_s - (time.monotonic() - self._t0))
        while not self._stop.wait(interval):
            started = time.monotonic()
            tree = self.tree.sample()
            sample = self.sampler.sample() if self.sampler.sources else None
            self._record(
                started - self._t0, tree, sample.devices if sample else (), sample.errors if sample else None
            )
            if not tree.root_alive:
                return
            # Keep a steady rhythm: a slow read shortens the following wait instead of adding to it.
            interval = max(0.0, self.thresholds.interval_s - (time.monotonic() - started))

    def _relevant(self, devices: tuple[DeviceSample, ...]) -> list[DeviceSample]:
        if self.expect is None:
            return list(devices)
        return [d for d in devices if d.vendor == EXPECT_VENDOR[self.expect]]

    def _record(
        self,
        t_s: float,
        tree: TreeReading,
        all_devices: tuple[DeviceSample, ...],
        errors: tuple[str, ...] | None,
    ) -> None:
        devices = self._relevant(all_devices)
        held = holding(devices, tree.pids, proc_root=self.proc_root, nested_namespace=self._nested)
        tick = Tick(
            t_s=round(t_s, 3),
            cpu_percent=round(tree.cpu_percent, 1),
            cpu_wait_percent=None if tree.wait_percent is None else round(tree.wait_percent, 1),
            rss_bytes=tree.rss_bytes,
            threads=tree.threads,
            processes=tuple(
                ProcessTick(
                    pid=p.pid, cpu_percent=round(p.cpu_percent, 1), rss_bytes=p.rss_bytes, threads=p.threads
                )
                for p in tree.processes
            ),
            gpus=tuple(
                GpuTick(
                    vendor=d.vendor,
                    index=d.index,
                    util_percent=d.gpu_util_percent,
                    memory_used_bytes=d.memory_used_bytes,
                    tree_memory_bytes=held.tree_memory_bytes.get(i),
                )
                for i, d in enumerate(devices)
            ),
            on_gpu={"found": True, "absent": False}.get(held.attribution),
        )
        observation = Observation(
            t_s=tick.t_s,
            cpu_percent=tick.cpu_percent,
            cpu_wait_percent=tick.cpu_wait_percent,
            attribution=held.attribution,
            held_utils=tuple(devices[i].gpu_util_percent for i in held.tree_memory_bytes),
            all_utils=tuple(d.gpu_util_percent for d in devices),
        )
        with self.lock:
            state = self.state
            state.detector.update(observation)
            self._accumulate(state, t_s, tree, devices, held.tree_memory_bytes)
            if _ATTRIBUTION_RANK[held.attribution] > _ATTRIBUTION_RANK[state.attribution]:
                state.attribution, state.attribution_reason = held.attribution, held.reason
            for error in errors or ():
                if error not in state.sampler_errors:
                    state.sampler_errors.append(error)
            state.seen += 1
            if (state.seen - 1) % state.stride == 0:
                state.timeline.append(tick)
                if len(state.timeline) > MAX_TIMELINE:
                    state.timeline = state.timeline[::2]
                    state.stride *= 2
            state.last = tick
            if self.on_tick is not None:
                self.on_tick(state)

    @staticmethod
    def _accumulate(
        state: LiveState, t_s: float, tree: TreeReading, devices: list[DeviceSample], held: dict[int, int]
    ) -> None:
        t_s = round(t_s, 3)
        cpu = tree.cpu_percent
        state.cpu_sum += cpu
        state.cpu_max = max(state.cpu_max, cpu)
        state.rss_max = max(state.rss_max, tree.rss_bytes)
        for proc in tree.processes:
            old = state.processes.get(proc.pid)
            state.processes[proc.pid] = ProcessSummary(
                pid=proc.pid,
                name=proc.name,
                first_seen_s=old.first_seen_s if old else t_s,
                last_seen_s=t_s,
                cpu_percent_max=round(max(proc.cpu_percent, old.cpu_percent_max if old else 0.0), 1),
                rss_max_bytes=_max(proc.rss_bytes, old.rss_max_bytes if old else None),
                threads_max=_max(proc.threads, old.threads_max if old else None),
            )
        Monitor._accumulate_devices(state, devices, held)

    @staticmethod
    def _accumulate_devices(state: LiveState, devices: list[DeviceSample], held: dict[int, int]) -> None:
        for position, device in enumerate(devices):
            key = (device.vendor, device.index)
            known = state.devices.get(key)
            state.devices[key] = DeviceSummary(
                vendor=device.vendor,
                index=device.index,
                name=device.name,
                memory_total_bytes=device.memory_total_bytes,
                util_percent_max=_max(device.gpu_util_percent, known.util_percent_max if known else None),
                tree_memory_max_bytes=_max(
                    held.get(position), known.tree_memory_max_bytes if known else None
                ),
            )


_N = TypeVar("_N", int, float)


def lower_priority() -> None:
    """Make the calling thread (and what it starts) yield the CPU to the workload it watches.

    On Linux ``setpriority`` on a thread id renices that thread only; elsewhere this does nothing.
    """
    if sys.platform != "linux":
        return
    # Not permitted in some sandboxes: watching still works then, just at normal priority.
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


def _max(a: _N | None, b: _N | None) -> _N | None:
    if a is None:
        return b
    return a if b is None else max(a, b)
