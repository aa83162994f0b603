"""collect(): probes run concurrently; a hung or crashing probe becomes a recorded failure."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator

import pytest

from envsnap.collector import Probe, ProbeEvent, collect
from envsnap.probes.base import ProbeContext
from envsnap.snapshot.model import Host

# `envsnap.collector` as an attribute is the public API function; the module is in sys.modules.
collect_module = importlib.import_module("envsnap.collector")

RELEASE = threading.Event()


@pytest.fixture(autouse=True)
def _release_hung_threads() -> Iterator[None]:
    RELEASE.clear()
    yield
    RELEASE.set()  # let abandoned probe threads finish


def _hung(ctx: ProbeContext) -> Host:
    RELEASE.wait(60)
    return Host(status="ok", hostname="too-late")


def _crashing(ctx: ProbeContext) -> Host:
    raise OSError(5, "Input/output error")


def _fast_context() -> ProbeContext:
    return ProbeContext(frameworks=False)


def test_a_hung_probe_is_abandoned_and_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        collect_module, "HOST", Probe("host", _hung, lambda r: Host(status="failed", reason=r), 0.3)
    )
    snapshot = collect(_fast_context())
    assert snapshot.host == Host(status="failed", reason="host probe timed out after 0.3 s")
    assert snapshot.python is not None
    assert snapshot.python.status == "ok"
    runs = {run.name: run for run in snapshot.meta.probes or ()}
    assert runs["host"].status == "failed"
    assert runs["host"].duration_s == pytest.approx(0.3)
    assert runs["python"].status == "ok"


def test_a_crashing_probe_is_recorded_with_its_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        collect_module, "HOST", Probe("host", _crashing, lambda r: Host(status="failed", reason=r), 5.0)
    )
    snapshot = collect(_fast_context())
    assert snapshot.host is not None
    assert snapshot.host.status == "failed"
    assert snapshot.host.reason == "host probe crashed: OSError: [Errno 5] Input/output error"
    assert snapshot.fingerprint is not None
    assert snapshot.fingerprint.startswith("sha256:")


def test_progress_reports_every_probe_start_and_finish() -> None:
    events: list[ProbeEvent] = []
    lock = threading.Lock()

    def record(event: ProbeEvent) -> None:
        with lock:
            events.append(event)

    snapshot = collect(_fast_context(), progress=record)
    started = {e.name for e in events if e.state == "started"}
    finished = {e.name for e in events if e.state == "finished"}
    assert started == finished == {run.name for run in snapshot.meta.probes or ()}
    assert "frameworks" not in started  # --no-frameworks
    assert snapshot.frameworks
    assert snapshot.frameworks.torch
    assert snapshot.frameworks.torch.reason == "--no-frameworks"


def test_timeout_scale_stretches_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        collect_module, "HOST", Probe("host", _hung, lambda r: Host(status="failed", reason=r), 0.1)
    )
    snapshot = collect(_fast_context(), timeout_scale=3.0)
    assert snapshot.host is not None
    assert snapshot.host.reason == "host probe timed out after 0.3 s"
