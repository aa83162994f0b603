"""A real Prometheus scrapes ``envsnap serve --metrics`` on the stub two-H100 host; its HTTP API is asserted.

The node: envsnap in a subprocess whose NVML is the C stub (tests/fakes/nvml_stub.c, two H100s from
a real capture) loaded by the real nvidia-ml-py, and this venv's torch. The known-good snapshot is
that same host saved once, then given a newer driver, so the live node is a driver downgrade: a
breaking change. A watch state is written by ``WatchExport`` into ``--watch-dir``. The server:
Debian's ``prometheus`` (tests/export/engine.py) on loopback, scraping every second. What the
tests read back is what Prometheus stored, through ``/api/v1/query``.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest

from envsnap.live.watch_state import WatchExport
from envsnap.snapshot import store
from envsnap.snapshot.finalize import finalize
from tests.export.engine import PrometheusServer, missing
from tests.fakes.nvml_stub import build_nvml_stub
from tests.installed_torch import installed_torch

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(missing("prometheus") is not None, reason=str(missing("prometheus"))),
]

KNOWN_GOOD_DRIVER = "595.45.04"
"""Newer than the stub's 590.48.01: the live node is a downgrade from its known-good (breaking)."""
READY_TIMEOUT_S = 180.0


@dataclass
class Node:
    prometheus: PrometheusServer
    serve: subprocess.Popen[str]
    target: str
    watched_pid: int


def _envsnap(stub: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envsnap", *argv],
        capture_output=True,
        text=True,
        env=dict(os.environ, LD_LIBRARY_PATH=str(stub)),
        cwd=cwd,
        timeout=180,
        check=False,
    )


def _ready_line(process: subprocess.Popen[str], timeout_s: float) -> str:
    """The ``serving metrics on http://HOST:PORT/metrics`` line on stderr (bounded wait)."""
    assert process.stderr is not None
    deadline = time.monotonic() + timeout_s
    seen = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], 1.0)
        if not ready:
            if process.poll() is not None:
                break
            continue
        line = process.stderr.readline()
        if not line:
            break
        seen.append(line)
        if "serving metrics on" in line:
            return line
    raise AssertionError(f"envsnap serve did not start: {''.join(seen)}")


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Node]:
    root = tmp_path_factory.mktemp("prometheus-engine")
    stub = build_nvml_stub(root / "stub")
    saved = _envsnap(stub, root, "save", "-o", str(root / "host.yaml"), "--no-frameworks")
    assert saved.returncode == 0, saved.stderr
    host = store.load(root / "host.yaml")
    assert host.accelerators is not None
    assert host.accelerators.nvidia is not None
    nvidia = msgspec.structs.replace(host.accelerators.nvidia, driver_version=KNOWN_GOOD_DRIVER)
    known = finalize(
        msgspec.structs.replace(host, accelerators=msgspec.structs.replace(host.accelerators, nvidia=nvidia))
    )
    store.save(known, root / "known-good.yaml")
    watch_dir = root / "watch"
    watch_dir.mkdir()
    WatchExport(watch_dir, os.getpid()).start()

    serve = subprocess.Popen(
        [sys.executable, "-m", "envsnap", "serve", "--metrics", "--listen", "127.0.0.1:0",
         "--against", str(root / "known-good.yaml"), "--watch-dir", str(watch_dir), "--interval", "600"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, LD_LIBRARY_PATH=str(stub)),
        cwd=root,
    )  # fmt: skip
    prometheus: PrometheusServer | None = None
    try:
        line = _ready_line(serve, READY_TIMEOUT_S)
        match = re.search(r"http://(127\.0\.0\.1:\d+)/metrics", line)
        assert match, line
        prometheus = PrometheusServer(root / "prometheus", [match.group(1)])
        prometheus.root.mkdir()
        prometheus.start()
        prometheus.wait_for('envsnap_stack_info{job="envsnap"}')
        yield Node(prometheus, serve, match.group(1), os.getpid())
    finally:
        if prometheus is not None:
            prometheus.stop()
        if serve.poll() is None:
            serve.send_signal(signal.SIGTERM)
            try:
                serve.wait(timeout=20)
            except subprocess.TimeoutExpired:
                serve.kill()
                serve.wait(timeout=10)


def test_the_target_is_up(node: Node) -> None:
    (up,) = node.prometheus.query(f'up{{instance="{node.target}"}}')
    assert up["value"][1] == "1"


def test_stack_info_series_and_labels(node: Node) -> None:
    (stack,) = node.prometheus.query("envsnap_stack_info")
    labels = stack["metric"]
    assert labels["job"] == "envsnap"
    assert labels["instance"] == node.target
    assert labels["driver"] == "590.48.01"  # the stub's driver (the H100 capture)
    assert labels["cuda"] == "13.1"
    torch = installed_torch()
    assert labels["torch"] == torch.version
    assert labels.get("torch_cuda", "") == (torch.cuda or "")
    assert labels["fingerprint"].startswith("sha256:")
    assert labels["python"] == ".".join(map(str, sys.version_info[:3]))


def test_two_h100s_with_their_labels(node: Node) -> None:
    gpus = sorted(node.prometheus.query("envsnap_gpu_info"), key=lambda s: s["metric"]["index"])
    assert [g["metric"]["index"] for g in gpus] == ["0", "1"]
    for gpu in gpus:
        assert gpu["metric"]["vendor"] == "nvidia"
        assert gpu["metric"]["name"] == "NVIDIA H100 80GB HBM3"
        assert gpu["metric"]["compute_capability"] == "9.0"
        assert gpu["value"][1] == "1"
    assert gpus[0]["metric"]["uuid"] != gpus[1]["metric"]["uuid"]
    assert node.prometheus.query("count(envsnap_gpu_info)")[0]["value"][1] == "2"


def test_findings_series(node: Node) -> None:
    findings = {s["metric"]["id"]: s for s in node.prometheus.query("envsnap_findings")}
    if installed_torch().cpu_only:
        cpu = findings["cpu-only-build-on-gpu-host"]
        assert cpu["metric"]["severity"] == "error"
        assert cpu["value"][1] == "1"
    else:
        assert "cpu-only-build-on-gpu-host" not in findings
    assert all(s["metric"]["severity"] in ("error", "warning", "info") for s in findings.values())


def test_drift_from_the_known_good_is_breaking(node: Node) -> None:
    (driver,) = node.prometheus.query('envsnap_drift_changes{impact="breaking",layer="driver"}')
    assert float(driver["value"][1]) >= 1
    (total,) = node.prometheus.query('sum(envsnap_drift_changes{impact="breaking"}) > 0')
    assert float(total["value"][1]) >= 1
    assert len(node.prometheus.query("envsnap_drift_changes")) == 3 * 8  # impact x layer, zeros kept
    (known,) = node.prometheus.query("envsnap_known_good_info")
    assert known["metric"]["fingerprint"].startswith("sha256:")


def test_probe_status_and_timestamp(node: Node) -> None:
    (nvidia,) = node.prometheus.query('envsnap_probe_status{probe="nvidia",status="ok"}')
    assert nvidia["value"][1] == "1"
    (stamp,) = node.prometheus.query("time() - envsnap_last_probe_timestamp_seconds")
    assert 0 <= float(stamp["value"][1]) < READY_TIMEOUT_S + 600


def test_watch_verdict_series(node: Node) -> None:
    series = node.prometheus.query(f'envsnap_watch_verdict{{pid="{node.watched_pid}"}}')
    verdicts = {s["metric"]["verdict"]: s["value"][1] for s in series}
    assert verdicts == {
        "gpu-active": "0", "cpu-fallback-suspected": "0", "gpu-idle-while-busy": "0",
        "no-accelerator": "0", "inconclusive": "1",
    }  # fmt: skip


def test_serve_stops_cleanly_on_sigterm(node: Node) -> None:
    """Last in the module: systemd's stop is SIGTERM, and it must be a clean exit 0."""
    node.serve.send_signal(signal.SIGTERM)
    assert node.serve.wait(timeout=20) == 0
