"""``envsnap fleet collect --ssh`` against a real OpenSSH server on loopback (engines.Sshd).

The hosts are aliases of 127.0.0.1 in a generated ssh_config, made to differ the way real nodes
do, through ssh itself (``SetEnv``, accepted by the server's ``AcceptEnv``), with one venv for all:
node2 has ``NCCL_P2P_DISABLE=1`` in its environment; node3 has a ``PYTHONPATH`` folder holding one
extra installed distribution (``fleet-odd 1.0``, metadata only), so its package list differs too;
node1 and node4 are the same. ``down`` is a closed port (unreachable); ``hung`` starts a Python
whose sitecustomize never returns (timed out). The whole CLI runs as a subprocess, nothing mocked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.fleet.engines import (
    SSH_BINARIES,
    Sshd,
    closed_port,
    missing,
    write_hang_site,
    write_tiny_distribution,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(missing(SSH_BINARIES) is not None, reason=f"sshd: {missing(SSH_BINARIES)}"),
]

TIMEOUT_S = 45
"""Per node: four real `envsnap save` runs share this machine's cores."""


def envsnap(
    *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envsnap", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    root = tmp_path_factory.mktemp("sshd")
    extra = write_tiny_distribution(root / "extra", "fleet-odd", "1.0")
    server = Sshd(root)
    hang = write_hang_site(root / "hang", server.root / "pids")
    aliases = {
        "node1": [],
        "node2": ["SetEnv NCCL_P2P_DISABLE=1"],
        "node3": [f"SetEnv PYTHONPATH={extra}"],
        "node4": [],
        "down": [f"Port {closed_port()}"],
        "hung": [f"SetEnv PYTHONPATH={hang}"],
    }
    server.start(aliases)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def collected(
    sshd: Sshd, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    out = tmp_path_factory.mktemp("fleet") / "fleet"
    done = envsnap(
        "fleet", "collect", "--ssh", "node[1-4],down,hung", "--ssh-config", str(sshd.config),
        "--python", sys.executable, "--no-frameworks", "--timeout", str(TIMEOUT_S), "-o", str(out),
    )  # fmt: skip
    return out, done


def test_collect_keeps_every_good_node_and_says_why_the_others_failed(
    collected: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, done = collected
    assert done.returncode == 1, done.stderr  # some nodes were not collected
    assert done.stdout.strip() == str(out / "fleet.yaml")
    index = yaml.safe_load((out / "fleet.yaml").read_text())
    status = {node["name"]: node["status"] for node in index["nodes"]}
    assert status == {
        "node1": "ok", "node2": "ok", "node3": "ok", "node4": "ok",
        "down": "unreachable", "hung": "timed-out",
    }  # fmt: skip
    reasons = {node["name"]: node.get("reason", "") for node in index["nodes"]}
    assert "Connection refused" in reasons["down"]
    assert index["transport"] == "ssh"
    assert index["collected_at"].endswith("Z")
    assert sorted(p.name for p in out.glob("*.yaml")) == [
        "fleet.yaml", "node1.yaml", "node2.yaml", "node3.yaml", "node4.yaml",
    ]  # fmt: skip
    fingerprints = {node["name"]: node.get("fingerprint") for node in index["nodes"]}
    assert fingerprints["node1"] == fingerprints["node4"] != fingerprints["node3"]
    assert "collected 4 of 6 nodes (1 unreachable, 1 timed-out)" in done.stderr


def test_show_names_the_odd_node_and_the_exact_difference(
    collected: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, _ = collected
    shown = envsnap("fleet", "show", str(out))
    assert shown.returncode == 1  # not uniform
    first = shown.stdout.splitlines()[0]
    assert first.startswith("odd one out: node3 — packages[fleet-odd]: — → 1.0 [notable]"), first
    data = json.loads(envsnap("fleet", "show", str(out), "--json").stdout)
    assert data["uniform"] is False
    assert data["groups"][0]["nodes"] == ["node1", "node4"]
    assert data["groups"][0]["reference"] is True
    by_nodes = {tuple(g["nodes"]): g for g in data["groups"][1:]}
    assert {(c["path"], c["new"]) for c in by_nodes[("node2",)]["changes"]} == {
        ("environment.variables.NCCL_P2P_DISABLE", "1")
    }
    odd = {(c["path"], c["kind"], c["new"]) for c in by_nodes[("node3",)]["changes"]}
    assert ("packages[fleet-odd]", "added", "1.0") in odd
    assert {f["name"]: f["status"] for f in data["failed"]} == {"down": "unreachable", "hung": "timed-out"}


def test_diff_of_the_folder_is_the_fleet_report(
    collected: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, _ = collected
    diffed = envsnap("diff", str(out), "--json")
    shown = envsnap("fleet", "show", str(out), "--json")
    assert diffed.returncode == shown.returncode == 1
    assert json.loads(diffed.stdout)["groups"] == json.loads(shown.stdout)["groups"]
    markdown = envsnap("fleet", "show", str(out), "--format", "markdown").stdout
    assert "| notable | `packages[fleet-odd]` | — | 1.0 |" in markdown


def test_check_against_a_golden_node_judges_every_node(
    collected: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, _ = collected
    done = envsnap("check", str(out), "--against", str(out / "node1.yaml"), "--fail-on", "minor", "--json")
    assert done.returncode == 1
    verdicts = {node["name"]: node["matches"] for node in json.loads(done.stdout)["nodes"]}
    assert verdicts == {
        "down": False, "hung": False, "node1": True, "node2": False, "node3": False, "node4": True,
    }  # fmt: skip
    only_good = envsnap("check", str(out), "--against", str(out / "node1.yaml"))  # breaking only
    assert only_good.returncode == 1  # unreachable and timed-out nodes never "match the golden image"


def test_envsnap_missing_on_the_node_is_said_per_node(sshd: Sshd, tmp_path: Path) -> None:
    python = "/usr/bin/python3"  # Debian's interpreter: envsnap is not installed there
    if subprocess.run([python, "-c", "import envsnap"], capture_output=True, check=False).returncode == 0:
        pytest.skip("the system python has envsnap installed")
    done = envsnap(
        "fleet", "collect", "--ssh", "node1", "--ssh-config", str(sshd.config), "--python", python,
        "-o", str(tmp_path / "out"),
    )  # fmt: skip
    assert done.returncode == 1
    index = yaml.safe_load((tmp_path / "out" / "fleet.yaml").read_text())
    assert index["nodes"][0]["status"] == "envsnap-missing"
    assert "No module named envsnap" in index["nodes"][0]["reason"]


def test_a_node_name_that_is_an_ssh_option_is_refused(sshd: Sshd, tmp_path: Path) -> None:
    planted = tmp_path / "pwned"
    done = envsnap(
        "fleet", "collect", "--ssh", f"-oProxyCommand=touch {planted}", "--ssh-config", str(sshd.config),
        "-o", str(tmp_path / "out"),
    )  # fmt: skip
    assert done.returncode == 2
    assert "not a valid node name" in done.stderr
    assert "Traceback" not in done.stderr
    hosts = tmp_path / "hosts"
    hosts.write_text("node1\n../../etc/cron.d/x\n")
    done = envsnap("fleet", "collect", "--hosts-file", str(hosts), "-o", str(tmp_path / "out"))
    assert done.returncode == 2
    assert f"{hosts}:2: not a valid node name" in done.stderr
    assert not planted.exists()
    assert not (tmp_path / "out").exists()


def test_a_flooding_node_is_cut_at_the_cap_and_reported(sshd: Sshd, monkeypatch: pytest.MonkeyPatch) -> None:
    from envsnap.fleet import ssh
    from envsnap.fleet.collect import classify

    monkeypatch.setattr(ssh, "MAX_STDOUT_BYTES", 64 * 1024)
    transport = ssh.SshTransport(["node1"], timeout_s=60, ssh_config=str(sshd.config))
    (output,) = transport.run(["sh", "-c", "yes envsnap | head -c 50000000"])
    assert output.stdout_truncated
    assert len(output.stdout) == 64 * 1024
    result = classify(output)
    assert result.record.status == "probe-failed"
    assert "output larger than" in (result.record.reason or "")


def test_progress_reports_every_node(sshd: Sshd) -> None:
    from envsnap.fleet.ssh import SshTransport

    events: list[tuple[str, str]] = []
    transport = SshTransport(["node1", "down"], timeout_s=30, fanout=1, ssh_config=str(sshd.config))
    outputs = transport.run(["true"], lambda node, state: events.append((node, state)))
    assert [o.returncode for o in outputs] == [0, None]
    assert sorted(events) == [
        ("down", "failed"),
        ("down", "started"),
        ("node1", "done"),
        ("node1", "started"),
    ]
    assert os.geteuid() == 0
