"""``envsnap fleet collect --slurm`` on a real three-node Slurm cluster on localhost (engines.SlurmCluster).

Debian's slurm-wlm runs several slurmd on one host (``slurmd -N n1``...). The nodes differ the
way real ones do, per node, from ``SLURMD_NODENAME``: ``--python`` is a wrapper that, on n3 only,
puts a folder with one extra installed distribution (``fleet-odd 1.0``) on PYTHONPATH, then runs
the one venv's interpreter. n1 and n2 are the same, so n3 is the odd one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.fleet.engines import SLURM_BINARIES, SlurmCluster, missing, node_wrapper, write_tiny_distribution

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(missing(SLURM_BINARIES) is not None, reason=f"slurm: {missing(SLURM_BINARIES)}"),
]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmCluster]:
    slurm = SlurmCluster(tmp_path_factory.mktemp("slurm"))
    try:
        slurm.start()
        yield slurm
    finally:
        slurm.stop()


@pytest.fixture(scope="module")
def wrapper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nodes")
    extra = write_tiny_distribution(root / "extra", "fleet-odd", "1.0")
    return node_wrapper(root / "python", {"n3": {"PYTHONPATH": str(extra)}})


def envsnap(cluster: SlurmCluster, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envsnap", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**cluster.env, **env},
        check=False,
    )


def test_collect_over_srun_gets_one_snapshot_per_node_and_finds_the_odd_one(
    cluster: SlurmCluster, wrapper: Path, tmp_path: Path
) -> None:
    out = tmp_path / "fleet"
    done = envsnap(cluster, "fleet", "collect", "--slurm", "--python", str(wrapper), "--no-frameworks",
                   "--timeout", "240", "-o", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    index = yaml.safe_load((out / "fleet.yaml").read_text())
    assert index["transport"] == "slurm"
    assert [(n["name"], n["status"]) for n in index["nodes"]] == [("n1", "ok"), ("n2", "ok"), ("n3", "ok")]
    assert "--ntasks-per-node=1 --label" in index["command"]
    shown = envsnap(cluster, "fleet", "show", str(out), "--json")
    assert shown.returncode == 1
    data = json.loads(shown.stdout)
    assert data["groups"][0]["nodes"] == ["n1", "n2"]
    assert data["groups"][1]["nodes"] == ["n3"]
    assert ("packages[fleet-odd]", "1.0") in {(c["path"], c["new"]) for c in data["groups"][1]["changes"]}
    assert data["headline"].startswith("odd one out: n3 — packages[fleet-odd]")


def test_inside_an_allocation_every_node_of_it_is_used(cluster: SlurmCluster, tmp_path: Path) -> None:
    out = tmp_path / "fleet"
    done = envsnap(cluster, "fleet", "collect", "--slurm", "--python", "/nonexistent/bin/python",
                   "-o", str(out), SLURM_JOB_NODELIST="n[2-3]")  # fmt: skip
    assert done.returncode == 1
    index = yaml.safe_load((out / "fleet.yaml").read_text())
    assert [(n["name"], n["status"]) for n in index["nodes"]] == [
        ("n2", "envsnap-missing"), ("n3", "envsnap-missing"),
    ]  # fmt: skip
    assert "not found" in index["nodes"][0]["reason"]


def test_a_step_past_its_timeout_is_cancelled_and_the_nodes_say_so(cluster: SlurmCluster) -> None:
    from envsnap.fleet.collect import classify
    from envsnap.fleet.slurm import SlurmTransport

    transport = SlurmTransport(["-w", "n1,n2", "-N", "2"], timeout_s=20, environ=cluster.env)
    outputs = transport.run(["sh", "-c", 'if [ "$SLURMD_NODENAME" = n2 ]; then sleep 120; fi; echo hi'])
    by_node = {o.node: o for o in outputs}
    assert by_node["n1"].returncode == 0
    assert by_node["n1"].stdout == b"hi\n"
    assert by_node["n2"].timed_out
    assert classify(by_node["n2"]).record.status == "timed-out"
    assert classify(by_node["n1"]).record.status == "probe-failed"  # "hi" is not a snapshot
