"""PLACEHOLDER (replaced by the amd probe work)."""

from __future__ import annotations

from dataclasses import dataclass

from envsnap.model import AmdInfo, DeviceSample
from envsnap.live.sampler import TelemetrySource
from envsnap.probes.base import ProbeContext


@dataclass(frozen=True)
class AmdReading:
    """Static facts and one telemetry sample per device."""

    info: AmdInfo
    telemetry: tuple[DeviceSample, ...] = ()


def probe(ctx: ProbeContext) -> AmdReading:
    """Placeholder."""
    return AmdReading(AmdInfo(status="skipped", reason="not implemented yet"))


def failed(reason: str) -> AmdReading:
    """The reading recorded when the probe cannot finish."""
    return AmdReading(AmdInfo(status="failed", reason=reason))


def open_telemetry(ctx: ProbeContext | None = None) -> TelemetrySource | None:
    """Placeholder: the live telemetry source, or None when the backend is unavailable."""
    return None
