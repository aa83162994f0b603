"""CPU, memory and threads of a process and all its descendants, read with psutil.

A workload is rarely one process: launchers, DataLoader workers and compiler subprocesses all do
its work. So every sample walks the tree again (children come and go) and sums it. psutil's
``cpu_percent()`` measures since the previous call *on the same object*, so Process objects are
kept between samples; a process seen for the first time reports its CPU from its next sample on.

psutil divides CPU-time deltas, counted in clock ticks (10 ms), by the wall time between calls, so
at short intervals a single-threaded process reads up to ~120%. A process can't use more than one
core per thread, nor more cores than the machine has, so each reading is capped at
``min(threads, cores) × 100`` (threads: the larger of this sample's and the previous one's, since
a thread may have ended in between). The tree total is the sum of the capped readings.

Beside the CPU a process got, each reading carries the CPU it *waited* for: the run-queue delay of
its threads (``/proc/<pid>/task/<tid>/schedstat``, second field, in ns), per interval. On a shared
machine a busy loop may get half a core and wait the other half; the two together are its demand,
which is what "CPU-bound" means (verdict.py). Where schedstat can't be read (not Linux, a kernel
without schedstats, another user's process) the wait is unknown (None), not zero.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import psutil


@dataclass(frozen=True)
class ProcessReading:
    """One process at one sample."""

    pid: int
    name: str | None
    cpu_percent: float
    """100 = one core busy for the whole interval."""
    rss_bytes: int | None
    threads: int | None
    wait_percent: float | None = None
    """Run-queue wait of its threads since the previous sample (100 = one thread waiting throughout)."""


@dataclass(frozen=True)
class TreeReading:
    """The whole tree at one sample; empty once the root is gone."""

    processes: tuple[ProcessReading, ...]
    root_alive: bool

    @property
    def pids(self) -> frozenset[int]:
        """Every PID of the tree."""
        return frozenset(p.pid for p in self.processes)

    @property
    def cpu_percent(self) -> float:
        """Sum over the tree (200 = two cores)."""
        return sum(p.cpu_percent for p in self.processes)

    @property
    def wait_percent(self) -> float | None:
        """Run-queue wait summed over the tree, or None when no process's wait could be read."""
        known = [p.wait_percent for p in self.processes if p.wait_percent is not None]
        return sum(known) if known else None

    @property
    def rss_bytes(self) -> int:
        """Sum of resident memory (shared pages are counted once per process, as ``ps`` does)."""
        return sum(p.rss_bytes or 0 for p in self.processes)

    @property
    def threads(self) -> int:
        """Threads over the tree."""
        return sum(p.threads or 0 for p in self.processes)


class ProcessTree:
    """Samples one root process and its descendants.

    Args:
        pid: the root.

    Raises:
        psutil.NoSuchProcess: the root does not exist (the caller turns that into BadInput).
    """

    def __init__(self, pid: int) -> None:
        self._root = psutil.Process(pid)
        self._known: dict[int, psutil.Process] = {pid: self._root}
        self._threads: dict[int, int] = {}
        self._delays: dict[int, tuple[int, int]] = {}
        """PID -> (run-queue delay of its threads in ns, monotonic ns when read), from the last sample."""
        self._cores = psutil.cpu_count() or 1
        self._root.cpu_percent(None)  # prime: the first sample measures from here
        delay = run_queue_delay_ns(pid)
        if delay is not None:
            self._delays[pid] = (delay, time.monotonic_ns())

    @property
    def pid(self) -> int:
        """PID of the root."""
        return self._root.pid

    def command_line(self) -> tuple[str, ...] | None:
        """The root's command line, when readable."""
        try:
            return tuple(self._root.cmdline()) or None
        except psutil.Error:
            return None

    def sample(self) -> TreeReading:
        """Read every live process of the tree once."""
        try:
            children = self._root.children(recursive=True)
            members = [self._root, *children]
        except psutil.Error:  # root gone (or a zombie we may not inspect)
            members = []
        members = self._without_ourselves(members)
        # psutil.Process equality includes the creation time, so a recycled PID is a new process.
        current: dict[int, psutil.Process] = {}
        seen_before: set[int] = set()
        for proc in members:
            known = self._known.get(proc.pid)
            if known is not None and known == proc:
                current[proc.pid] = known
                seen_before.add(proc.pid)
            else:
                current[proc.pid] = proc
        self._known = current
        readings = [
            reading
            for proc in current.values()
            if (reading := _read(proc, self._threads.get(proc.pid), self._cores)) is not None
        ]
        readings = [self._with_wait(r, r.pid in seen_before) for r in readings]
        readings.sort(key=lambda r: r.pid)
        self._threads = {r.pid: r.threads for r in readings if r.threads is not None}
        self._delays = {pid: value for pid, value in self._delays.items() if pid in current}
        return TreeReading(processes=tuple(readings), root_alive=self._root.pid in current)

    def _with_wait(self, reading: ProcessReading, known: bool) -> ProcessReading:
        """The reading with its run-queue wait since the previous sample (None on a first sight)."""
        delay = run_queue_delay_ns(reading.pid)
        now = time.monotonic_ns()
        previous = self._delays.get(reading.pid) if known else None
        if delay is None:
            return reading
        self._delays[reading.pid] = (delay, now)
        if previous is None or now <= previous[1]:
            return reading
        # A thread that exited took its delay with it: never let the sum go backwards.
        waited = max(delay - previous[0], 0) / (now - previous[1]) * 100.0
        return ProcessReading(**{**reading.__dict__, "wait_percent": waited})

    @staticmethod
    def _without_ourselves(members: list[psutil.Process]) -> list[psutil.Process]:
        """Leave envsnap (and what it started) out when it watches one of its own ancestors."""
        own = os.getpid()
        if not any(proc.pid == own for proc in members):
            return members
        try:
            ours = {own, *(child.pid for child in psutil.Process(own).children(recursive=True))}
        except psutil.Error:
            ours = {own}
        return [proc for proc in members if proc.pid not in ours]


def run_queue_delay_ns(pid: int, proc_root: Path = Path("/proc")) -> int | None:
    """Total time the process's threads spent runnable but not running, in ns; None if unreadable."""
    total, read = 0, False
    try:
        tasks = list((proc_root / str(pid) / "task").iterdir())
    except OSError:
        return None
    for task in tasks:
        try:
            fields = (task / "schedstat").read_text().split()
            total += int(fields[1])
            read = True
        except (OSError, IndexError, ValueError):  # the thread ended, or no schedstats here
            continue
    return total if read else None


def cap_cpu_percent(
    cpu_percent: float, threads: int | None, previous_threads: int | None, cores: int
) -> float:
    """A process's CPU reading, capped at what its threads and the machine's cores allow (100 = one core)."""
    most_threads = max(threads or 0, previous_threads or 0) or cores  # unknown count: cap at the machine
    return min(cpu_percent, min(most_threads, cores) * 100.0)


def _read(proc: psutil.Process, previous_threads: int | None, cores: int) -> ProcessReading | None:
    try:
        with proc.oneshot():
            if proc.status() == psutil.STATUS_ZOMBIE:
                return None
            threads = proc.num_threads()
            return ProcessReading(
                pid=proc.pid,
                name=proc.name(),
                cpu_percent=cap_cpu_percent(proc.cpu_percent(None), threads, previous_threads, cores),
                rss_bytes=proc.memory_info().rss,
                threads=threads,
            )
    except psutil.Error:  # exited between the walk and the read, or not ours to read
        return None
