"""Shared helpers of the exporter tests: snapshots that drift, exposition text parsed back, promtool."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path

import msgspec
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from envsnap.api import with_findings
from envsnap.snapshot import store
from envsnap.snapshot.finalize import finalize
from envsnap.snapshot.model import Package, ProbeRun, Snapshot
from tests.factories import make_snapshot

PROBES = (
    ProbeRun(name="host", status="ok", duration_s=0.01),
    ProbeRun(name="nvidia", status="ok", duration_s=0.2),
    ProbeRun(name="amd", status="skipped", duration_s=0.0, reason="no amdgpu device"),
    ProbeRun(name="frameworks", status="failed", duration_s=3.0, reason="timed out"),
)


def node(**overrides: object) -> Snapshot:
    """The one-H100 factory snapshot as a probe leaves it: probe runs, fingerprint, findings."""
    base = make_snapshot(**overrides)
    base = msgspec.structs.replace(base, meta=msgspec.structs.replace(base.meta, probes=PROBES))
    return with_findings(finalize(base))


def with_driver(snapshot: Snapshot, version: str) -> Snapshot:
    """The same node on another NVIDIA driver."""
    accelerators = snapshot.accelerators
    assert accelerators is not None
    assert accelerators.nvidia is not None
    nvidia = msgspec.structs.replace(accelerators.nvidia, driver_version=version)
    return with_findings(
        finalize(
            msgspec.structs.replace(
                snapshot, accelerators=msgspec.structs.replace(accelerators, nvidia=nvidia)
            )
        )
    )


def with_packages(snapshot: Snapshot, count: int, version: str = "1.0") -> Snapshot:
    """The node with ``count`` more distributions installed."""
    extra = tuple(Package(name=f"pkg-{i:05d}", version=version) for i in range(count))
    return finalize(msgspec.structs.replace(snapshot, packages=(*(snapshot.packages or ()), *extra)))


def save(snapshot: Snapshot, path: Path) -> Path:
    store.save(snapshot, path)
    return path


def samples(text: str) -> list[Sample]:
    """Every sample of an exposition, parsed back with prometheus-client's own parser."""
    return [sample for family in text_string_to_metric_families(text) for sample in family.samples]


def series(text: str, metric: str) -> list[tuple[dict[str, str], float]]:
    return [(dict(s.labels), s.value) for s in samples(text) if s.name == metric]


def one(text: str, metric: str, /, **labels: str) -> float:
    """The value of the one series ``metric`` whose labels include ``labels``."""
    found = [value for got, value in series(text, metric) if labels.items() <= got.items()]
    assert len(found) == 1, (metric, labels, series(text, metric))
    return found[0]


def promtool(*args: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["promtool", *map(str, args)], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


def names(families: Iterable[object]) -> list[str]:
    return [family.name for family in families]  # type: ignore[attr-defined]
