"""``envsnap serve``'s HTTP side and cache: /metrics only, probes cached between scrapes."""

from __future__ import annotations

import os
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from prometheus_client.registry import CollectorRegistry

from envsnap.errors import BadInput
from envsnap.exporter.server import bind, bound_address, is_loopback, parse_listen, serve
from envsnap.exporter.source import CachedMetrics
from envsnap.snapshot.model import Snapshot
from tests.export.engine import http_get
from tests.export.helpers import node, one, series, with_driver


@dataclass
class CountingCapture:
    """A capture that returns prepared snapshots in turn (the last one again), counting calls."""

    snapshots: list[Snapshot]
    calls: int = 0
    fail: bool = False

    def __call__(self) -> Snapshot:
        self.calls += 1
        if self.fail:
            raise RuntimeError("NVML: GPU is lost token=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789")
        return self.snapshots[min(self.calls, len(self.snapshots)) - 1]


@dataclass
class Running:
    url: str
    source: CachedMetrics
    stop: threading.Event
    thread: threading.Thread
    failures: list[str] = field(default_factory=list)


@pytest.fixture
def running() -> Iterator[Running]:
    capture = CountingCapture([node(), with_driver(node(), "550.54.15")])
    source = CachedMetrics(capture, None, None)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(source)
    server = bind("127.0.0.1", 0, registry)
    host, port = bound_address(server)
    stop, ready = threading.Event(), threading.Event()
    failures: list[str] = []
    thread = threading.Thread(
        target=serve,
        args=(source, server),
        kwargs={
            "interval_s": 3600.0,
            "on_ready": ready.set,
            "on_refresh_failed": failures.append,
            "stop": stop,
        },
        daemon=True,
    )
    thread.start()
    assert ready.wait(30)
    yield Running(f"http://{host}:{port}", source, stop, thread, failures)
    stop.set()
    thread.join(10)
    assert not thread.is_alive()


def test_scrapes_are_answered_from_the_cache(running: Running) -> None:
    capture = running.source.capture
    assert isinstance(capture, CountingCapture)
    texts = []
    for _ in range(5):
        status, body = http_get(f"{running.url}/metrics")
        assert status == 200
        texts.append(body.decode())
    assert capture.calls == 1  # five scrapes, one probe
    assert one(texts[-1], "envsnap_stack_info", driver="590.48.01") == 1
    assert one(texts[-1], "envsnap_refresh_failures_total") == 0
    assert one(texts[-1], "envsnap_refresh_duration_seconds") >= 0

    assert running.source.refresh()  # the serve loop's next capture: a new driver
    text = http_get(f"{running.url}/metrics")[1].decode()
    assert one(text, "envsnap_stack_info", driver="550.54.15") == 1
    assert capture.calls == 2


def test_a_failed_capture_keeps_the_last_metrics_and_counts(running: Running) -> None:
    capture = running.source.capture
    assert isinstance(capture, CountingCapture)
    capture.fail = True
    assert not running.source.refresh()
    text = http_get(f"{running.url}/metrics")[1].decode()
    assert one(text, "envsnap_refresh_failures_total") == 1
    assert len(series(text, "envsnap_stack_info")) == 1  # still the last good capture
    assert "GPU is lost" in (running.source.stats.last_error or "")


@pytest.mark.parametrize("path", ["/", "/metrics/", "/favicon.ico", "/debug", "/metrics/../etc/passwd"])
def test_only_metrics_is_served(running: Running, path: str) -> None:
    status, body = http_get(f"{running.url}{path}")
    assert status == 404
    assert b"envsnap_" not in body


def test_only_get_is_answered(running: Running) -> None:
    request = urllib.request.Request(f"{running.url}/metrics", data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=5)
    assert caught.value.code == 405


def test_openmetrics_is_negotiated_like_prometheus_asks(running: Running) -> None:
    request = urllib.request.Request(
        f"{running.url}/metrics", headers={"Accept": "application/openmetrics-text;version=1.0.0"}
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        body = response.read().decode()
        assert response.headers["Content-Type"].startswith("application/openmetrics-text")
    assert "# TYPE envsnap_stack info" in body
    assert body.endswith("# EOF\n")


def test_the_watch_folder_is_read_on_every_scrape(tmp_path: Path) -> None:
    from envsnap.live.watch_state import WatchExport

    source = CachedMetrics(CountingCapture([node()]), None, tmp_path)
    assert source.refresh()
    registry = CollectorRegistry(auto_describe=False)
    registry.register(source)
    from prometheus_client.exposition import generate_latest

    assert "envsnap_watch_verdict" not in generate_latest(registry).decode()
    WatchExport(tmp_path, 4242).start()
    text = generate_latest(registry).decode()
    assert one(text, "envsnap_watch_verdict", pid="4242", verdict="inconclusive") == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:9401", ("127.0.0.1", 9401)),
        ("[::1]:9401", ("::1", 9401)),
        ("localhost:0", ("localhost", 0)),
        ("0.0.0.0:9401", ("0.0.0.0", 9401)),
    ],
)
def test_parse_listen(text: str, expected: tuple[str, int]) -> None:
    assert parse_listen(text) == expected


@pytest.mark.parametrize("text", ["9401", ":9401", "127.0.0.1:", "127.0.0.1:99999", "127.0.0.1:http"])
def test_parse_listen_refuses(text: str) -> None:
    with pytest.raises(BadInput, match="--listen"):
        parse_listen(text)


def test_loopback_detection() -> None:
    assert is_loopback("127.0.0.1")
    assert is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback("0.0.0.0")
    assert not is_loopback("10.0.0.5")


def test_a_taken_port_is_a_one_line_error() -> None:
    registry = CollectorRegistry(auto_describe=False)
    first = bind("127.0.0.1", 0, registry)
    try:
        with pytest.raises(BadInput, match="cannot bind"):
            bind("127.0.0.1", bound_address(first)[1], registry)
    finally:
        first.server_close()


def test_the_known_good_is_read_again_when_the_file_changes(tmp_path: Path) -> None:
    from envsnap.exporter.source import KnownGood
    from envsnap.snapshot import store

    known = node()
    today = with_driver(known, "550.54.15")
    path = tmp_path / "known.yaml"
    store.save(known, path)
    source = CachedMetrics(CountingCapture([today]), KnownGood(str(path)), None)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(source)
    from prometheus_client.exposition import generate_latest

    def breaking() -> float:
        assert source.refresh()
        text = generate_latest(registry).decode()
        return one(text, "envsnap_drift_changes", impact="breaking", layer="driver")

    assert breaking() == 1
    store.save(today, path)  # a new baseline rolled out: today's stack is the known-good now
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 1_000_000_000))
    assert breaking() == 0
    path.write_text("schema: [damaged\n")  # a half-copied file: the last good baseline stays
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 2_000_000_000))
    assert breaking() == 0
