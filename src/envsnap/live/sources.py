"""Which telemetry backends a live session polls: every vendor backend that opens on this host.

The TUI and ``envsnap run``/``watch`` share this, so there is one sampler, not two.
"""

from __future__ import annotations

from envsnap.live.sampler import Sampler
from envsnap.probes.amd import probe as amd
from envsnap.probes.base import ProbeContext, TelemetrySource
from envsnap.probes.nvidia import probe as nvidia


def default_sources(ctx: ProbeContext | None = None) -> list[TelemetrySource]:
    """Open every available backend (NVML, amdsmi or sysfs); an empty list on a host without GPUs."""
    ctx = ctx or ProbeContext()
    sources: list[TelemetrySource] = []
    for opener in (nvidia.open_telemetry, amd.open_telemetry):
        try:
            source = opener(ctx)
        except Exception:  # a backend that can't open is simply not polled; probes report why
            source = None
        if source is not None:
            sources.append(source)
    return sources


def default_sampler(ctx: ProbeContext | None = None) -> Sampler:
    """A Sampler over every backend available on this host."""
    return Sampler(default_sources(ctx))
