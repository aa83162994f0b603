"""Each probe is reported the moment it returns, with its value, so a live view can draw its layer.

``collect`` reads results in a fixed order (python, nvidia, ..., frameworks, host); the progress
events must not follow that order: a fast probe is reported while a slow one still runs.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator

import pytest

from envsnap.collector import Probe, ProbeEvent, collect, partial_snapshot
from envsnap.probes.base import ProbeContext
from envsnap.snapshot.model import Host
from envsnap.tui.overview_rows import layer_rows

collect_module = importlib.import_module("envsnap.collector")
RELEASE = threading.Event()


@pytest.fixture(autouse=True)
def _release() -> Iterator[None]:
    RELEASE.clear()
    yield
    RELEASE.set()


def test_a_finished_probe_is_reported_before_a_slow_one_ahead_of_it_in_collect(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # python is read first by collect(); hold it until the host probe (read last) was reported.
    real_python = collect_module.PYTHON

    def slow_python(ctx: ProbeContext) -> object:
        assert RELEASE.wait(20), "the host probe was never reported while python ran"
        return real_python.run(ctx)

    monkeypatch.setattr(collect_module, "PYTHON", Probe("python", slow_python, real_python.failed, 30.0))
    monkeypatch.setattr(
        collect_module,
        "HOST",
        Probe("host", lambda ctx: Host(status="ok", hostname="h1"), lambda r: Host(status="failed"), 5.0),
    )
    events: list[ProbeEvent] = []
    lock = threading.Lock()

    def record(event: ProbeEvent) -> None:
        with lock:
            events.append(event)
        if event.name == "host" and event.state == "finished":
            RELEASE.set()

    snapshot = collect(ProbeContext(frameworks=False), progress=record)
    finished = [e for e in events if e.state == "finished"]
    names = [e.name for e in finished]
    assert names.index("host") < names.index("python")
    assert len(names) == len(set(names))  # each probe reported once
    host_event = next(e for e in finished if e.name == "host")
    assert host_event.value == Host(status="ok", hostname="h1")
    assert snapshot.host is not None
    assert snapshot.host.hostname == "h1"


def test_partial_rows_show_each_finished_layer_and_wait_for_the_rest() -> None:
    values: dict[str, object] = {}
    events: list[ProbeEvent] = []
    lock = threading.Lock()

    def record(event: ProbeEvent) -> None:
        with lock:
            events.append(event)
            if event.value is not None:
                values[event.name] = event.value

    collect(ProbeContext(frameworks=False), progress=record)
    partial = partial_snapshot({name: values[name] for name in ("host", "python")})
    runs = {e.run.name: e.run for e in events if e.run is not None and e.name in ("host", "python")}
    rows = {row.key: row for row in layer_rows(None, runs, partial)}
    assert rows["host"].badge == "ok"
    assert " CPUs" in rows["host"].summary  # the layer's own summary, not "probed in 0.01 s"
    assert "packages" in rows["python"].summary
    assert rows["nvidia"].badge == "loading"  # not reported yet: still waiting
    assert rows["torch"].badge == "loading"
    assert partial.environment is None  # where secrets live: never in a partial view
