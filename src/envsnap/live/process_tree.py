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
"""

from __future__ import annotations

import os
from dataclasses import dataclass

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
        self._cores = psutil.cpu_count() or 1
        self._root.cpu_percent(None)  # prime: the first sample measures from here

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
        for proc in members:
            known = self._known.get(proc.pid)
            current[proc.pid] = known if known is not None and known == proc else proc
        self._known = current
        readings = [
            reading
            for proc in current.values()
            if (reading := _read(proc, self._threads.get(proc.pid), self._cores)) is not None
        ]
        readings.sort(key=lambda r: r.pid)
        self._threads = {r.pid: r.threads for r in readings if r.threads is not None}
        return TreeReading(processes=tuple(readings), root_alive=self._root.pid in current)

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
