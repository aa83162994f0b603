"""Fixtures of the TUI tests: an app factory with fake data sources built from recorded hardware.

The snapshot is the shared test snapshot (tests/factories.py: this development machine's host,
Python and CPU torch) with the NVIDIA section of a real capture; telemetry replays the same
capture (tests/fakes/fake_telemetry.py). The clock is frozen, process lookups see nothing (the
recorded PIDs belong to the recorded host, not this one), so screens are deterministic.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import msgspec
import pytest

from envsnap.collector import ProbeEvent, ProgressCallback
from envsnap.probes.base import TelemetrySource
from envsnap.snapshot.finalize import finalize
from envsnap.snapshot.model import Finding, ProbeRun, Snapshot
from envsnap.tui.app import EnvsnapApp
from envsnap.tui.telemetry import HostLoad, ProcessInfo
from tests.factories import make_snapshot
from tests.fakes.fake_telemetry import RecordedHost, ReplaySource, sampler_factory, v100_host

FROZEN_NOW = datetime(2022, 9, 15, 14, 0, 0, tzinfo=timezone.utc)
"""The app's clock in tests: shortly after the V100 capture (13:55:33 UTC that day)."""


class FixedHost:
    """This host's load, fixed (the recorded host's own CPU and RAM are not in its capture).

    A 2-socket server of the V100 capture's class: 64 logical CPUs and 512 GiB, a third in use.
    """

    def read(self) -> HostLoad:
        return HostLoad(
            cpu_percent=12.0,
            cpus=64,
            memory_used_bytes=171 * 2**30,
            memory_total_bytes=512 * 2**30,
            load_1m=7.5,
        )


class NoLocalProcesses:
    """Process lookup for recorded telemetry: the capture's PIDs do not exist on this host."""

    def lookup(self, pids: Iterable[int]) -> Mapping[int, ProcessInfo]:
        return {}


def recorded_findings() -> tuple[Finding, ...]:
    """What envsnap's real rules find on the recorded V100 host: the screenshots show real findings.

    On that capture (driver 460.73.01, CUDA <= 11.2) with this machine's stack: a CPU-only torch on a
    host with eight GPUs (error), a CUDA 13.0 toolkit the driver can't run (warning), persistence
    mode off on the data-center GPUs (info).
    """
    from envsnap.rules import evaluate
    from tests.fakes.fake_telemetry import v100_host

    return evaluate(host_snapshot(v100_host()))


def host_snapshot(host: RecordedHost, findings: Sequence[Finding] = ()) -> Snapshot:
    """The test snapshot on a recorded host: its accelerators, its capture time, a real fingerprint."""
    base = make_snapshot()
    assert base.accelerators is not None
    accelerators = msgspec.structs.replace(base.accelerators, nvidia=host.nvidia, amd=host.amd)
    meta = msgspec.structs.replace(base.meta, captured_at=host.captured_at.strftime("%Y-%m-%dT%H:%M:%SZ"))
    snapshot = msgspec.structs.replace(base, meta=meta, accelerators=accelerators)
    return msgspec.structs.replace(finalize(snapshot), findings=tuple(findings))


class FixedCollector:
    """A collector returning a prepared snapshot; reports the probes' progress like collect() does."""

    def __init__(self, snapshot: Snapshot, release: threading.Event | None = None) -> None:
        self.snapshot = snapshot
        self.calls = 0
        self.release = release
        """When given, each call reports one finished probe and waits for it (a slow collection)."""

    def __call__(self, progress: ProgressCallback) -> Snapshot:
        self.calls += 1
        for run in self.snapshot.meta.probes or ():
            progress(ProbeEvent(run.name, "started"))
        if self.release is not None:
            progress(ProbeEvent("python", "finished", ProbeRun(name="python", status="ok", duration_s=0.05)))
            self.release.wait(timeout=30)
        return self.snapshot


@pytest.fixture
def v100() -> RecordedHost:
    """The 8× V100S host under load."""
    return v100_host()


AppFactory = Callable[..., EnvsnapApp]


@pytest.fixture
def make_app(tmp_path: Path, v100: RecordedHost) -> AppFactory:
    """Build an EnvsnapApp on fakes; keyword arguments override the defaults."""

    def build(
        *,
        host: RecordedHost | None = None,
        sources: Sequence[TelemetrySource] | None = None,
        snapshot: Snapshot | None = None,
        collector: Callable[[ProgressCallback], Snapshot] | None = None,
        **options: Any,
    ) -> EnvsnapApp:
        recorded = host or v100
        snap = snapshot or host_snapshot(recorded, recorded_findings())
        options.setdefault("snapshot_dir", tmp_path / "snapshots")
        options.setdefault("interval_s", 3600.0)  # one sample at start; tests ask for more with sample_now()
        options.setdefault("process_lookup", NoLocalProcesses())
        options.setdefault("host_load", FixedHost())
        options.setdefault("clock", lambda: FROZEN_NOW)
        options.setdefault(
            "sampler_factory",
            sampler_factory(
                list(sources) if sources is not None else [ReplaySource(recorded)], recorded.captured_at
            ),
        )
        app = EnvsnapApp(collector=collector or FixedCollector(snap), **options)
        app.animation_level = "none"  # tab underline animations only slow the tests down
        return app

    return build


async def wait_for(condition: Callable[[], object], pilot: Any, *, timeout_s: float = 30.0) -> None:
    """Pause the pilot until ``condition()`` holds (workers run in threads); fail after the timeout."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


async def until_ready(app: EnvsnapApp, pilot: Any) -> None:
    """Wait until the snapshot, the first sample and the snapshots list have all arrived."""
    await wait_for(lambda: app.main.snapshot is not None, pilot)
    await wait_for(lambda: app.main.entries is not None, pilot)
    if app.live:
        await wait_for(lambda: app.main.telemetry is not None, pilot)
    await pilot.pause()
