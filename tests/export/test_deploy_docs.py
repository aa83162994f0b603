"""The deployment examples in docs/deploy/ run commands the CLI accepts, and systemd accepts the units."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from envsnap.cli import cli

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy"
UNITS = ["envsnap-metrics.service", "envsnap-textfile.service", "envsnap-textfile.timer"]


def _parse(argv: list[str]) -> tuple[click.Command, click.Context]:
    """Resolve ``envsnap ARGV`` to its (sub)command and parse its options as a run would, running nothing."""
    assert Path(argv[0]).name == "envsnap", argv
    args = list(argv[1:])
    command: click.Command = cli
    with click.Context(cli) as root:
        while isinstance(command, click.Group) and args and args[0] in command.list_commands(root):
            found = command.get_command(root, args.pop(0))
            assert found is not None
            command = found
    return command, command.make_context(command.name or "envsnap", args)


def _exec_start(unit: str) -> list[str]:
    lines = [line for line in (DEPLOY / unit).read_text().splitlines() if line.startswith("ExecStart=")]
    assert len(lines) == 1, unit
    return shlex.split(lines[0].removeprefix("ExecStart="))


def test_the_metrics_service_runs_serve_on_loopback() -> None:
    command, ctx = _parse(_exec_start("envsnap-metrics.service"))
    assert command.name == "serve"
    assert ctx.params["metrics"] is True
    assert ctx.params["listen"].startswith("127.0.0.1:")
    assert ctx.params["against"] == "/etc/envsnap/known-good.yaml"


def test_the_textfile_service_writes_into_node_exporters_folder() -> None:
    command, ctx = _parse(_exec_start("envsnap-textfile.service"))
    assert command.name == "prometheus"
    assert ctx.params["output"].endswith(".prom")  # the textfile collector reads *.prom only


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_accepts_the_units(tmp_path: Path) -> None:
    envsnap = shutil.which("envsnap") or str(Path(sys.executable).with_name("envsnap"))
    for unit in UNITS:
        text = (DEPLOY / unit).read_text().replace("/usr/local/bin/envsnap", envsnap)
        (tmp_path / unit).write_text(text)
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *(str(tmp_path / unit) for unit in UNITS)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    own = [line for line in (done.stdout + done.stderr).splitlines() if any(unit in line for unit in UNITS)]
    assert own == [], own


def _daemonset() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DEPLOY / "kubernetes-daemonset.yaml").read_text())
    return data


def test_the_daemonset_serves_what_prometheus_is_told_to_scrape() -> None:
    daemonset = _daemonset()
    assert daemonset["kind"] == "DaemonSet"
    template = daemonset["spec"]["template"]
    (container,) = template["spec"]["containers"]
    command, ctx = _parse(container["command"])
    assert command.name == "serve"
    assert ctx.params["metrics"] is True
    port = int(ctx.params["listen"].rpartition(":")[2])
    assert container["ports"][0]["containerPort"] == port
    assert template["metadata"]["annotations"]["prometheus.io/port"] == str(port)
    assert template["metadata"]["annotations"]["prometheus.io/path"] == "/metrics"
    assert container["readinessProbe"]["httpGet"]["path"] == "/metrics"
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    assert str(Path(ctx.params["against"]).parent) in mounts
    assert daemonset["spec"]["selector"]["matchLabels"].items() <= template["metadata"]["labels"].items()
