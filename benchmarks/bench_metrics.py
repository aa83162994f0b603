"""What does a scrape of ``envsnap serve --metrics`` cost with the probes cached? Target: at most 50 ms.

Times, in the same run, median of many scrapes taken in turns:

  baseline  a bare prometheus-client registry holding the same number of series as plain Gauges,
            served by prometheus-client's own ``start_http_server`` and scraped over HTTP
  envsnap   ``envsnap serve``'s server (exporter/server.py) over a real capture of this machine
            (probed once, as the serve loop does between scrapes), with drift against a known-good
            snapshot and ``--watch-dir`` holding 16 watch states, read on every scrape

Both are fetched with the same HTTP client on loopback, so the ratio is envsnap's own overhead
(copying the cached families, reading the watch folder, the path filter). Also printed: the
capture a scrape does *not* pay for, and the in-process render of both registries.
Run: ``python benchmarks/bench_metrics.py [--scrapes N] [--no-frameworks]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import msgspec
from prometheus_client import CollectorRegistry, Gauge, start_http_server
from prometheus_client.exposition import generate_latest

from envsnap import api
from envsnap.exporter.server import bind, bound_address, serve
from envsnap.exporter.source import CachedMetrics, KnownGood
from envsnap.live.watch_state import WatchState, state_path
from envsnap.snapshot import store
from envsnap.snapshot.model import Package, Snapshot

TARGET_MS = 50.0


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def median_s(actions: list[Callable[[], object]], repeat: int) -> list[float]:
    """Median wall time of each action; the actions take turns, so a busy moment hits both alike."""
    times: list[list[float]] = [[] for _ in actions]
    for _ in range(repeat):
        for action, samples in zip(actions, times, strict=True):
            samples.append(_timed(action))
    return [statistics.median(samples) for samples in times]


def _fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return bytes(response.read())


def _known_good(snapshot: Snapshot, folder: Path) -> Path:
    """This machine's capture with another package set: hundreds of drift changes to count."""
    packages = tuple(Package(name=f"pkg-{i:04d}", version="1.0") for i in range(500))
    path = folder / "known-good.yaml"
    store.save(msgspec.structs.replace(snapshot, packages=packages), path)
    return path


def _bare_registry(series: int) -> CollectorRegistry:
    registry = CollectorRegistry()
    gauge = Gauge("bare_series", "A plain gauge per series.", ["name", "index"], registry=registry)
    for index in range(series):
        gauge.labels(name=f"series-{index}", index=str(index)).set(index)
    return registry


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scrapes", type=int, default=200)
    parser.add_argument("--no-frameworks", action="store_true", help="capture without importing torch")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        snapshot = api.collect(frameworks=not args.no_frameworks)
        capture_s = time.perf_counter() - started
        known = KnownGood(str(_known_good(snapshot, folder)))
        watches = folder / "watch"
        watches.mkdir()
        for pid in range(1000, 1016):
            state = WatchState(
                pid=pid, process="python3", verdict="gpu-active", active=True, updated_at=time.time()
            )
            state_path(watches, pid).write_bytes(msgspec.json.encode(state))

        source = CachedMetrics(lambda: snapshot, known, watches)
        registry = CollectorRegistry(auto_describe=False)
        registry.register(source)
        server = bind("127.0.0.1", 0, registry)
        host, port = bound_address(server)
        stop, ready = threading.Event(), threading.Event()
        loop = threading.Thread(
            target=serve,
            args=(source, server),
            kwargs={"interval_s": 3600.0, "on_ready": ready.set, "stop": stop},
        )
        loop.start()
        ready.wait(60)
        envsnap_url = f"http://{host}:{port}/metrics"
        page = _fetch(envsnap_url).decode()
        series = sum(1 for line in page.splitlines() if line and not line.startswith("#"))

        bare = _bare_registry(series)
        bare_server, bare_thread = start_http_server(0, addr="127.0.0.1", registry=bare)
        bare_url = f"http://127.0.0.1:{bare_server.server_address[1]}/metrics"
        try:
            for url in (envsnap_url, bare_url):  # warm both (first-request costs)
                _fetch(url)
            bare_s, envsnap_s = median_s(
                [lambda: _fetch(bare_url), lambda: _fetch(envsnap_url)], args.scrapes
            )
            renders: list[Callable[[], object]] = [
                lambda: generate_latest(bare),
                lambda: generate_latest(registry),
            ]
            render_bare, render_envsnap = median_s(renders, args.scrapes)
        finally:
            stop.set()
            loop.join(10)
            bare_server.shutdown()
            bare_server.server_close()
            bare_thread.join(10)

    print(
        f"series per scrape: {series} ({len(page)} bytes); capture (not paid by a scrape): {capture_s:.2f} s"
    )
    print(f"baseline  bare prometheus-client over HTTP:  {bare_s * 1000:7.2f} ms a scrape")
    print(f"envsnap   serve --metrics, probes cached:    {envsnap_s * 1000:7.2f} ms a scrape")
    print(f"ratio envsnap / baseline: {envsnap_s / bare_s:.2f}x")
    print(f"in-process render: bare {render_bare * 1000:.2f} ms, envsnap {render_envsnap * 1000:.2f} ms "
          f"({render_envsnap / render_bare:.2f}x)")  # fmt: skip
    verdict = "meets" if envsnap_s * 1000 <= TARGET_MS else "MISSES"
    print(f"target <= {TARGET_MS:.0f} ms a scrape: {verdict} it ({envsnap_s * 1000:.2f} ms)")


if __name__ == "__main__":
    main()
