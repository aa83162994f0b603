"""PLACEHOLDER (replaced by the nvidia probe work)."""

from __future__ import annotations

from dataclasses import dataclass

from envsnap.model import NvidiaInfo, DeviceSample
from envsnap.live.sampler import TelemetrySource
from envsnap.probes.base import ProbeContext


@dataclass(frozen=True)
class NvidiaReading:
    """Static facts and one telemetry sample per device."""

    info: NvidiaInfo
    telemetry: tuple[DeviceSample, ...] = ()


def probe(ctx: ProbeContext) -> NvidiaReading:
    """Placeholder."""
    return NvidiaReading(NvidiaInfo(status="skipped", reason="not implemented yet"))


def failed(reason: str) -> NvidiaReading:
    """The reading recorded when the probe cannot finish."""
    return NvidiaReading(NvidiaInfo(status="failed", reason=reason))


def open_telemetry(ctx: ProbeContext | None = None) -> TelemetrySource | None:
    """Placeholder: the live telemetry source, or None when the backend is unavailable."""
    return None
