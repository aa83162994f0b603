"""What the sampling worker adds to each Sample before the UI sees it: history and process details.

Both run in the sampling thread, never on the event loop:

- ``TelemetryHistory`` keeps the last readings of each device, so each ``SampleTaken`` message
  carries complete, immutable sparkline series (a coalesced message loses no points);
- ``PsutilProcesses`` joins the PIDs the driver reports with psutil (user, command line, CPU%),
  keeping ``psutil.Process`` objects between samples so CPU% is measured over the interval.

No Textual here, so both are unit-tested on their own.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import psutil

    from envsnap.snapshot.model import DeviceSample, Sample

HISTORY_LENGTH = 120
"""Readings kept per device: two minutes at the default 1 s interval; wider than any sparkline."""


def device_key(device: DeviceSample) -> str:
    """Stable id of a device across samples and in DOM ids, e.g. ``nvidia-0``."""
    return f"{device.vendor}-{device.index}"


@dataclass(frozen=True)
class DeviceHistory:
    """Recent utilization of one device, oldest first, in percent."""

    gpu_util_percent: tuple[float, ...] = ()
    memory_util_percent: tuple[float, ...] = ()


def memory_activity_percent(device: DeviceSample) -> float | None:
    """Memory utilization as the driver reports it, else memory used as a share of the total."""
    if device.memory_util_percent is not None:
        return device.memory_util_percent
    if device.memory_used_bytes is not None and device.memory_total_bytes:
        return 100.0 * device.memory_used_bytes / device.memory_total_bytes
    return None


class TelemetryHistory:
    """Rolling per-device series of GPU and memory utilization."""

    def __init__(self, length: int = HISTORY_LENGTH) -> None:
        self._length = length
        self._gpu: dict[str, deque[float]] = {}
        self._memory: dict[str, deque[float]] = {}

    def add(self, sample: Sample) -> dict[str, DeviceHistory]:
        """Record a sample and return every device's series after it.

        A device without a reading (lost, or the field unsupported) gets no new point rather
        than a fake zero, so its sparkline shows when data stopped.
        """
        result: dict[str, DeviceHistory] = {}
        for device in sample.devices:
            key = device_key(device)
            gpu = self._gpu.setdefault(key, deque(maxlen=self._length))
            memory = self._memory.setdefault(key, deque(maxlen=self._length))
            if device.status == "ok":
                if device.gpu_util_percent is not None:
                    gpu.append(device.gpu_util_percent)
                activity = memory_activity_percent(device)
                if activity is not None:
                    memory.append(activity)
            result[key] = DeviceHistory(tuple(gpu), tuple(memory))
        return result


@dataclass(frozen=True)
class ProcessInfo:
    """What this host knows about a PID the driver reported."""

    pid: int
    user: str | None = None
    command: str | None = None
    """Command line joined with spaces (or the process name when the command line is hidden)."""
    cpu_percent: float | None = None
    """CPU use since the previous sample, percent of one core; None on the first reading."""


class ProcessLookup(Protocol):
    """Joins driver PIDs with the operating system's view of them."""

    def lookup(self, pids: Iterable[int]) -> Mapping[int, ProcessInfo]:
        """Details of each PID that exists on this host; absent PIDs are left out."""
        ...


@dataclass
class PsutilProcesses:
    """``ProcessLookup`` through psutil; keeps Process objects so CPU% spans the sample interval."""

    _known: dict[int, psutil.Process] = field(default_factory=dict)

    def lookup(self, pids: Iterable[int]) -> dict[int, ProcessInfo]:
        """Details of each live PID; PIDs from another PID namespace or already gone are skipped."""
        import psutil

        wanted = set(pids)
        for gone in set(self._known) - wanted:
            del self._known[gone]
        found: dict[int, ProcessInfo] = {}
        for pid in sorted(wanted):
            cached = self._known.get(pid)
            first = cached is None
            try:
                proc = cached if cached is not None else psutil.Process(pid)
                with proc.oneshot():
                    cpu = proc.cpu_percent(None)
                    user = proc.username()
                    cmdline = proc.cmdline()
                    command = " ".join(cmdline) if cmdline else proc.name()
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                self._known.pop(pid, None)
                continue
            self._known[pid] = proc
            # psutil's first cpu_percent(None) has no interval to measure over and returns 0.0.
            found[pid] = ProcessInfo(pid, user, command, None if first else cpu)
        return found


@dataclass(frozen=True)
class HostLoad:
    """This host's CPU and memory, next to the GPUs (what a person running nvitop also watches)."""

    cpu_percent: float | None = None
    """Use of all cores since the previous reading, percent of the whole machine; None at first."""
    cpus: int | None = None
    memory_used_bytes: int | None = None
    memory_total_bytes: int | None = None
    load_1m: float | None = None


class HostLoadSource(Protocol):
    """Reads the host's load; called in the sampling worker once per sample."""

    def read(self) -> HostLoad: ...


class PsutilHost:
    """``HostLoadSource`` through psutil (CPU% measured between two readings, like top)."""

    def __init__(self) -> None:
        self._primed = False

    def read(self) -> HostLoad:
        """CPU since the last call, memory in use (total minus available), the 1-minute load."""
        import os

        import psutil

        cpu = psutil.cpu_percent(None)
        primed, self._primed = self._primed, True
        memory = psutil.virtual_memory()
        try:
            load: float | None = os.getloadavg()[0]
        except OSError:  # not on every platform
            load = None
        return HostLoad(
            cpu_percent=cpu if primed else None,
            cpus=psutil.cpu_count(),
            memory_used_bytes=memory.total - memory.available,
            memory_total_bytes=memory.total,
            load_1m=load,
        )


def sample_pids(sample: Sample) -> list[int]:
    """Every PID the driver reported in a sample."""
    return sorted({proc.pid for device in sample.devices for proc in device.processes or ()})
