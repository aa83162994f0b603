"""A real Prometheus server for the exporter tests: Debian's ``prometheus`` on a loopback port.

Nothing is faked: the server scrapes the target over HTTP with its own client, stores the samples
in its own TSDB, and the tests read them back through its HTTP API (``/api/v1/query``), exactly as
a dashboard would. Its config, data folder and log live in the test's temp folder; it is started
with a bounded wait for readiness and stopped by its PID (SIGTERM, then SIGKILL) at teardown.

``missing()`` says why it can't run here (the ``prometheus`` package is not installed), so the one
test that needs it skips saying exactly that; CI installs it (.ci/run).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import subprocess
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fleet.engines import free_port

START_TIMEOUT_S = 30.0


def missing(binary: str) -> str | None:
    """Why ``binary`` (``prometheus`` or ``promtool``) can't run here, or None."""
    if shutil.which(binary) is None:
        return f"{binary} is not installed (apt-get install -y prometheus; CI installs it)"
    return None


def http_get(url: str, timeout: float = 5.0) -> tuple[int, bytes]:
    """Status and body of a GET, error statuses included (urllib raises on them)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return int(response.status), bytes(response.read())
    except urllib.error.HTTPError as err:
        return int(err.code), bytes(err.read())


@dataclass
class PrometheusServer:
    """``prometheus`` scraping ``targets`` every second, listening on 127.0.0.1 only."""

    root: Path
    targets: list[str]
    port: int = 0
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = free_port()
        config = self.root / "prometheus.yml"
        targets = ", ".join(f"'{t}'" for t in self.targets)
        config.write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
            f"scrape_configs:\n  - job_name: envsnap\n    static_configs:\n      - targets: [{targets}]\n"
        )
        log = (self.root / "prometheus.log").open("wb")
        self.process = subprocess.Popen(
            [
                "prometheus",
                f"--config.file={config}",
                f"--storage.tsdb.path={self.root / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--log.level=warn",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.root,
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"prometheus exited: {self.log()}")
            with contextlib.suppress(OSError):
                if http_get(f"{self.url}/-/ready", timeout=1.0)[0] == 200:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"prometheus not ready after {START_TIMEOUT_S:.0f} s: {self.log()}")

    def log(self) -> str:
        return (self.root / "prometheus.log").read_text(errors="replace")[-2000:]

    def query(self, promql: str) -> list[dict[str, Any]]:
        """The instant vector ``promql`` evaluates to now."""
        status, body = http_get(f"{self.url}/api/v1/query?{urllib.parse.urlencode({'query': promql})}")
        answer = json.loads(body)
        assert status == 200, answer
        assert answer["status"] == "success", answer
        result: list[dict[str, Any]] = answer["data"]["result"]
        return result

    def wait_for(self, promql: str, timeout_s: float = 60.0) -> list[dict[str, Any]]:
        """Poll ``promql`` until it returns series (bounded), then return them."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            result = self.query(promql)
            if result:
                return result
            time.sleep(0.5)
        raise AssertionError(f"no series for {promql} within {timeout_s:.0f} s; log: {self.log()}")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None
