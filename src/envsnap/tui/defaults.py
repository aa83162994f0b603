"""The TUI's real data sources, as factories the app takes (tests pass fakes instead).

Each factory imports its heavy modules only when called, from a thread worker, so starting the
TUI costs no probe imports before the first frame.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from envsnap.collector import ProgressCallback
    from envsnap.live.sampler import Sampler
    from envsnap.snapshot.model import Snapshot

Collector = Callable[["ProgressCallback"], "Snapshot"]
"""Probes the machine; called in a worker with a progress callback (itself called from probe threads)."""
SamplerFactory = Callable[[], "Sampler"]
"""Opens the telemetry backends (NVML init and the like); called once, in the sampling worker."""
Clock = Callable[[], datetime]
"""The current time (UTC); frozen in tests."""


def live_collector(python: str | None = None, frameworks: bool = True) -> Collector:
    """A collector that probes this machine like ``envsnap save`` does (findings attached later)."""

    def collect(progress: ProgressCallback) -> Snapshot:
        from envsnap import api

        return api.collect(python=python, frameworks=frameworks, progress=progress, findings=False)

    return collect


def live_sampler() -> Sampler:
    """The one shared sampler over every backend this host has (see live/sources.py)."""
    from envsnap.live.sources import default_sampler

    return default_sampler()


def utc_now() -> datetime:
    """Now, in UTC."""
    return datetime.now(timezone.utc)


def capture_time(moment: datetime) -> str:
    """The ``meta.captured_at`` form: ``2026-11-29T12:00:00Z``."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
