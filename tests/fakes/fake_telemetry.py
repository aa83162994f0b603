"""Fake TelemetrySources that replay real recorded GPU state, for the TUI and live-loop tests.

Every number comes from a real ``nvidia-smi -q -x`` or ``rocm-smi`` capture in tests/data (see
tests/data/SOURCES.md), parsed by the project's own parsers. Readings vary over time without
inventing values: at read ``t`` device ``i`` shows the live readings GPU ``(i + t) mod n`` had in
the capture (same host, same load), while keeping its own identity and processes.

Scenario wrappers reproduce the failures the TUI must survive: a GPU lost mid-session, a backend
that starts failing after start, and a read that hangs until released.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import msgspec

from envsnap.live.sampler import Sampler
from envsnap.probes.base import TelemetrySource
from envsnap.probes.nvidia.smi_xml import parse
from envsnap.snapshot.model import AmdInfo, DeviceSample, NvidiaInfo

DATA = Path(__file__).resolve().parents[1] / "data"
V100_XML = DATA / "nvidia" / "8x-tesla-v100s-pcie-32gb_driver-460.73.01_dtd-v11.xml"
A100_MIG_XML = DATA / "nvidia" / "a100-sxm4-80gb_mig-enabled_driver-535.54.03_dtd-v12.xml"

LIVE_FIELDS = (
    "memory_used_bytes",
    "memory_free_bytes",
    "gpu_util_percent",
    "memory_util_percent",
    "temperature_c",
    "power_draw_watts",
    "graphics_clock_mhz",
    "sm_clock_mhz",
    "memory_clock_mhz",
    "fan_percent",
    "throttle_reasons",
)
"""What changes from reading to reading; identity, limits and processes stay with the device."""

GPU_IS_LOST = "GPU is lost"
"""NVML's error string for NVML_ERROR_GPU_IS_LOST (nvmlErrorString)."""
NVML_UNKNOWN_ERROR = "Unknown Error"
"""NVML's error string for NVML_ERROR_UNKNOWN, as a backend failing after start reports it."""


@dataclass(frozen=True)
class RecordedHost:
    """A capture: the static section, one sample per device, and when it was taken."""

    devices: tuple[DeviceSample, ...]
    captured_at: datetime
    nvidia: NvidiaInfo | None = None
    amd: AmdInfo | None = None


def _xml_time(xml_text: str) -> datetime:
    found = re.search(r"<timestamp>([^<]+)</timestamp>", xml_text)
    assert found, "nvidia-smi XML without <timestamp>"
    return datetime.strptime(found.group(1).strip(), "%a %b %d %H:%M:%S %Y").replace(tzinfo=timezone.utc)


def nvidia_host(path: Path) -> RecordedHost:
    """A recorded NVIDIA host from an ``nvidia-smi -q -x`` file."""
    text = path.read_text(encoding="utf-8")
    report = parse(text)
    return RecordedHost(report.samples, _xml_time(text), nvidia=report.info)


def v100_host() -> RecordedHost:
    """8× Tesla V100S-PCIE-32GB under load, driver 460.73.01 (datakit gtx-8card.xml)."""
    return nvidia_host(V100_XML)


MI250_EPOCH = datetime(2024, 9, 25, tzinfo=timezone.utc)
"""rocm-smi JSON carries no capture time: the date of the commit that added the ROCm 6 capture stands in."""


def mi250_host() -> RecordedHost:
    """Two MI250 GCDs from two recorded boards (tests/fakes/amd_fixtures.py), amdgpu 6.2.4.

    Both captures report ``GFX Version: gfx9010``, rocm-smi's spelling of gfx90a (see the shared
    SOURCES.md note on this file).
    """
    from tests.fakes.amd_fixtures import (
        MI250_ROCM5,
        MI250_ROCM6,
        mi250_samples,
        rocm_smi_devices,
        rocm_smi_driver,
    )

    devices = rocm_smi_devices(MI250_ROCM6, gfx_target="gfx90a") + tuple(
        msgspec.structs.replace(d, index=1) for d in rocm_smi_devices(MI250_ROCM5, gfx_target="gfx90a")
    )
    info = AmdInfo(status="ok", source="import", driver_version=rocm_smi_driver(MI250_ROCM6), devices=devices)
    return RecordedHost(mi250_samples(), MI250_EPOCH, amd=info)


def a100_mig_host() -> RecordedHost:
    """One A100-SXM4-80GB with MIG enabled (4 instances), driver 535.54.03 (telegraf a100-sxm4-v12.xml)."""
    return nvidia_host(A100_MIG_XML)


class ReplaySource:
    """A TelemetrySource replaying a recorded host; see the module docstring for the variation."""

    def __init__(self, host: RecordedHost, *, name: str = "nvml", cycle: bool = True) -> None:
        self.name = name
        self.host = host
        self.cycle = cycle
        self.reads = 0
        self.closed = False

    def read(self) -> tuple[DeviceSample, ...]:
        t = self.reads
        self.reads += 1
        devices = self.host.devices
        if not self.cycle or len(devices) < 2:
            return devices
        out = []
        for i, device in enumerate(devices):
            source = devices[(i + t) % len(devices)]
            out.append(msgspec.structs.replace(device, **{f: getattr(source, f) for f in LIVE_FIELDS}))
        return tuple(out)

    def close(self) -> None:
        self.closed = True


class LosingSource(ReplaySource):
    """Device ``index`` is lost from read ``after`` on (NVML answers GPU_IS_LOST for it only)."""

    def __init__(self, host: RecordedHost, *, index: int, after: int, name: str = "nvml") -> None:
        super().__init__(host, name=name)
        self.index = index
        self.after = after

    def read(self) -> tuple[DeviceSample, ...]:
        devices = super().read()
        if self.reads <= self.after:
            return devices
        return tuple(
            DeviceSample(
                vendor=d.vendor,
                index=d.index,
                name=d.name,
                pci_bus_id=d.pci_bus_id,
                uuid=d.uuid,
                status="lost",
                reason=GPU_IS_LOST,
            )
            if d.index == self.index
            else d
            for d in devices
        )


class FailingSource(ReplaySource):
    """The whole backend raises from read ``after`` on, as NVML does when the driver goes away."""

    def __init__(self, host: RecordedHost, *, after: int, name: str = "nvml") -> None:
        super().__init__(host, name=name)
        self.after = after

    def read(self) -> tuple[DeviceSample, ...]:
        devices = super().read()
        if self.reads > self.after:
            raise RuntimeError(NVML_UNKNOWN_ERROR)
        return devices


class BlockingSource(ReplaySource):
    """Read number ``block_at`` (1-based) hangs until ``release`` is set, like a stuck driver call."""

    def __init__(self, host: RecordedHost, *, block_at: int = 2, name: str = "nvml") -> None:
        super().__init__(host, name=name)
        self.block_at = block_at
        self.blocked = threading.Event()
        """Set while a read is stuck, so tests know the hang has started."""
        self.release = threading.Event()
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()

    def read(self) -> tuple[DeviceSample, ...]:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            devices = super().read()
            if self.reads == self.block_at:
                self.blocked.set()
                self.release.wait(timeout=60)
            return devices
        finally:
            with self._lock:
                self.in_flight -= 1


def stepping_clock(start: datetime, step: timedelta = timedelta(seconds=1)) -> Callable[[], str]:
    """A sampler clock starting at the capture time and advancing one step per call (deterministic)."""
    state = {"now": start}

    def clock() -> str:
        now = state["now"]
        state["now"] = now + step
        return now.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    return clock


def sampler_of(*sources: TelemetrySource, start: datetime) -> Sampler:
    """A real Sampler over fake sources, with a deterministic clock."""
    return Sampler(list(sources), clock=stepping_clock(start))


def sampler_factory(sources: Sequence[TelemetrySource], start: datetime) -> Callable[[], Sampler]:
    """What the app takes: opens (builds) the sampler when first called."""
    return lambda: sampler_of(*sources, start=start)
