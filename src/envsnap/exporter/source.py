"""Where the exporter's numbers come from: a capture (probed or read), the known-good file, the watch folder.

``node_families`` is one export (``envsnap export prometheus``): capture, diff, families.
``CachedMetrics`` is the collector behind ``envsnap serve``: the slow part (probing takes seconds,
torch's import alone one or two) runs in ``refresh()``, on the serve loop's schedule; a scrape
only copies the cached families and reads the watch folder (a directory listing), so a scrape
costs milliseconds however slow the probes are. A failed refresh keeps the last good families
and counts the failure (``envsnap_refresh_failures_total``): a scrape never waits for a probe,
and never sees half of one.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from envsnap import api
from envsnap.live.watch_state import read_states
from envsnap.render.prometheus import Drift, snapshot_families, watch_families
from envsnap.snapshot.model import Snapshot

Capture = Callable[[], Snapshot]
"""Returns a redacted snapshot with its findings (``api.collect``, or a file read)."""


def live_capture(python: str | None, frameworks: bool) -> Capture:
    """Probe this machine, findings attached (the framework probe's own cache is used between runs)."""

    def capture() -> Snapshot:
        return api.collect(python=python, frameworks=frameworks)

    return capture


def file_capture(path: str) -> Capture:
    """Read a saved snapshot or a pasted report (redacted, fingerprint recomputed), findings attached."""

    def capture() -> Snapshot:
        (snapshot,), _ = api.load_checked([path])
        return api.with_findings(snapshot)

    return capture


class KnownGood:
    """The ``--against`` snapshot, read again whenever the file changes (a new baseline rolled out).

    The first read fails loudly (``BadInput``: a typo must stop the command); a later file that
    can't be read keeps the last good baseline, so a half-copied file does not turn drift off.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._stamp: tuple[int, int] | None = None
        (self.snapshot,), self.edited = api.load_checked([path])
        self._stamp = self._file_stamp()

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return (info.st_mtime_ns, info.st_size)

    def current(self) -> Snapshot:
        stamp = self._file_stamp()
        if stamp is not None and stamp != self._stamp:
            try:
                (self.snapshot,), _ = api.load_checked([self.path])
                self._stamp = stamp
            except Exception:  # keep the baseline we have; the next change of the file is tried again
                pass
        return self.snapshot


def node_families(snapshot: Snapshot, known_good: Snapshot | None) -> list[Metric]:
    """The families of one capture, with drift against ``known_good`` when given."""
    drift = None
    if known_good is not None:
        drift = Drift(changes=api.diff(known_good, snapshot), known_good_fingerprint=known_good.fingerprint)
    return snapshot_families(snapshot, drift=drift)


def folder_watch_families(watch_dir: Path | None) -> list[Metric]:
    """The families of the watches in ``watch_dir`` (none without a folder)."""
    if watch_dir is None:
        return []
    return watch_families(read_states(watch_dir))


@dataclass
class RefreshStats:
    failures: int = 0
    last_duration_s: float | None = None
    last_error: str | None = None


class CachedMetrics(Collector):
    """The ``/metrics`` collector of ``envsnap serve``: cached node families, live watch families.

    Args:
        capture: probes (or reads) the node; slow.
        known_good: the ``--against`` baseline, or None for no drift series.
        watch_dir: the folder ``envsnap watch --export`` writes to, or None.
    """

    def __init__(self, capture: Capture, known_good: KnownGood | None, watch_dir: Path | None) -> None:
        self.capture = capture
        self.known_good = known_good
        self.watch_dir = watch_dir
        self.stats = RefreshStats()
        self.refreshes = 0
        self._lock = threading.Lock()
        self._families: list[Metric] = []

    def refresh(self) -> bool:
        """Capture again and replace the cached families; False (and the last ones kept) on failure."""
        started = time.monotonic()
        try:
            snapshot = self.capture()
            families = node_families(snapshot, self.known_good.current() if self.known_good else None)
        except Exception as err:  # a long-running exporter outlives one bad probe; the counter says so
            with self._lock:
                self.stats.failures += 1
                self.stats.last_error = f"{type(err).__name__}: {err}"
            return False
        with self._lock:
            self._families = families
            self.stats.last_duration_s = time.monotonic() - started
            self.refreshes += 1
        return True

    def collect(self) -> Iterable[Metric]:
        with self._lock:
            families = list(self._families)
            failures, duration = self.stats.failures, self.stats.last_duration_s
        families += folder_watch_families(self.watch_dir)
        families.append(
            CounterMetricFamily(
                "envsnap_refresh_failures",
                "Captures that failed since `envsnap serve` started (the last good metrics are kept).",
                value=failures,
            )
        )
        if duration is not None:
            families.append(
                GaugeMetricFamily(
                    "envsnap_refresh_duration_seconds",
                    "How long the last successful capture (probes, rules, diff) took.",
                    value=duration,
                    unit="seconds",
                )
            )
        return families
