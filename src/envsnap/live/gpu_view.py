"""What ``envsnap gpus`` shows: one reading of every GPU, with who runs what on it.

The devices come from the sampler's backends (NVML, amdsmi or sysfs: live/sources.py), opened
once and read once per frame. The processes a driver lists are PIDs and memory; the user and
the command line come from the process table (psutil), as gpustat does. Two cautions:

- Inside a container NVIDIA's driver reports *host* PIDs (see live/attribution.py). Looking them
  up here would name whatever unrelated process has that number in our namespace, so in a nested
  PID namespace only the driver's own process name is shown.
- Command lines hold secrets (``--hf-token ...``): every one goes through ``redact_argv``, and a
  driver-reported name through ``redact_text``.
"""

from __future__ import annotations

import contextlib
import shlex
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import psutil

from envsnap.live.attribution import nested_pid_namespace
from envsnap.live.sampler import Sampler
from envsnap.probes.base import TelemetrySource
from envsnap.snapshot.model import DeviceSample
from envsnap.snapshot.redact import redact_argv, redact_text


@dataclass(frozen=True)
class ProcessView:
    """One process holding memory on a GPU."""

    pid: int
    user: str | None
    """Owner's user name; None when the process is not visible here."""
    command: str | None
    """The command line (redacted), or the driver's name for the process, or None."""
    used_memory_bytes: int | None


@dataclass(frozen=True)
class DeviceView:
    """One GPU at one instant, and its processes (None: not read or not reported)."""

    sample: DeviceSample
    processes: tuple[ProcessView, ...] | None


@dataclass(frozen=True)
class GpuView:
    """One frame of ``envsnap gpus``."""

    hostname: str
    captured_at: str
    drivers: tuple[str, ...]
    """E.g. ``NVIDIA 590.48.01``; one entry per backend that says."""
    devices: tuple[DeviceView, ...]
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Owner:
    create_time: float
    user: str | None
    command: str | None


class ProcessTable:
    """User and command of a PID, cached for as long as that PID is the same process."""

    def __init__(self, *, nested: bool | None = None) -> None:
        self._nested = nested_pid_namespace() if nested is None else nested
        self._cache: dict[int, _Owner] = {}

    def owner(self, pid: int) -> tuple[str | None, str | None]:
        """``(user, command)`` of ``pid`` here; ``(None, None)`` when it can't be looked up."""
        if self._nested:
            return None, None
        try:
            process = psutil.Process(pid)
            created = process.create_time()
        except (psutil.Error, OSError, ValueError):
            self._cache.pop(pid, None)
            return None, None
        known = self._cache.get(pid)
        if known is not None and known.create_time == created:
            return known.user, known.command
        user = command = None
        with contextlib.suppress(psutil.Error, OSError):
            user = process.username()
        with contextlib.suppress(psutil.Error, OSError):
            argv = process.cmdline()
            command = shlex.join(redact_argv(argv)) if argv else None
        self._cache[pid] = _Owner(created, user, command)
        return user, command


def _processes(sample: DeviceSample, table: ProcessTable) -> tuple[ProcessView, ...] | None:
    if sample.processes is None:
        return None
    views = []
    for process in sample.processes:
        user, command = table.owner(process.pid)
        if command is None and process.name:
            command = redact_text(process.name)
        views.append(ProcessView(process.pid, user, command, process.used_memory_bytes))
    return tuple(views)


def _driver(source: TelemetrySource) -> str | None:
    """``NVIDIA 590.48.01`` when the backend can say which driver it talks to."""
    reader: Callable[[], str | None] | None = getattr(source, "driver_version", None)
    if reader is None:
        return None
    try:
        version = reader()
    except Exception:  # the header line is a courtesy; a failing call must not cost the frame
        return None
    vendor = "NVIDIA" if source.name == "nvml" else "AMD amdgpu"
    return f"{vendor} {version}" if version else None


class GpuReader:
    """Opened backends plus the process table; ``read()`` once per frame, ``close()`` at the end."""

    def __init__(self, sources: Sequence[TelemetrySource], table: ProcessTable | None = None) -> None:
        self._sampler = Sampler(sources)
        self._table = table if table is not None else ProcessTable()
        self._drivers = tuple(d for d in (_driver(s) for s in sources) if d)
        self._hostname = socket.gethostname()

    @property
    def found(self) -> bool:
        """Whether any backend opened (a host without GPUs has none)."""
        return bool(self._sampler.sources)

    def read(self, *, processes: bool = True) -> GpuView:
        """One frame: every device, and its processes unless ``processes`` is False."""
        sample = self._sampler.sample()
        devices = tuple(
            DeviceView(device, _processes(device, self._table) if processes else None)
            for device in sample.devices
        )
        return GpuView(self._hostname, sample.captured_at, self._drivers, devices, sample.errors or ())

    def close(self) -> None:
        """Close the backends."""
        self._sampler.close()


def open_reader(**options: Any) -> GpuReader:
    """A reader over every backend this host has (NVML, amdsmi or sysfs); may have none."""
    from envsnap.live.sources import default_sources

    return GpuReader(default_sources(), **options)
