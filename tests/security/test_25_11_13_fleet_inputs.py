"""25.11 (fleet), 25.13: fleet inputs that used to hang or exhaust memory.

11. A FIFO named ``*.yaml`` in a fleet folder (or as its ``fleet.yaml``) is refused by type: it
    never blocks ``fleet show`` or ``diff DIR`` waiting for a writer.
13. A hosts-file line or ``--ssh`` node set whose ranges expand past ``MAX_NODES`` is refused
    (exit 2, one line) before anything is expanded: ``gpu[1-50000000]`` took 3.6 GB and a minute,
    two ranges ended in MemoryError. Counted, not timed: ClusterShell is never asked.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from envsnap.errors import BadInput
from envsnap.fleet import nodes
from envsnap.snapshot import store
from tests.fakes.diff_snapshots import make
from tests.security.conftest import run_cli


def _cli(*argv: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envsnap", *argv], capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.mark.parametrize("fifo_name", ["n3.yaml", "fleet.yaml"])
def test_a_fifo_in_a_fleet_folder_never_blocks(fifo_name: str, tmp_path: Path) -> None:
    for name in ("n1.yaml", "n2.yaml"):
        store.save(make(), tmp_path / name)
    os.mkfifo(tmp_path / fifo_name)
    for argv in (["fleet", "show", str(tmp_path)], ["diff", str(tmp_path)]):
        try:
            done = _cli(*argv)
        except subprocess.TimeoutExpired:
            pytest.fail(f"envsnap {' '.join(argv)} blocked on a FIFO")
        assert "Traceback" not in done.stderr
        assert "not a regular file" in done.stdout + done.stderr
        if fifo_name == "fleet.yaml":
            assert done.returncode == 2
            assert done.stderr.count("\n") == 1


@pytest.fixture
def no_clustershell(monkeypatch: pytest.MonkeyPatch) -> None:
    from ClusterShell import NodeSet

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the node set was expanded")

    monkeypatch.setattr(NodeSet, "NodeSet", refuse)


@pytest.mark.parametrize(
    "line",
    [
        "gpu[1-50000000]",
        "gpu[1-10000]-ib[1-10000]",
        "a[0-99999],b[0-99999]",
        "x[ 1 - 9999999 ]",
        "n[-8-99999999]",
    ],
)
def test_a_node_set_expanding_past_the_cap_is_refused_before_expanding(
    line: str, tmp_path: Path, no_clustershell: None
) -> None:
    hosts = tmp_path / "hosts"
    hosts.write_text(f"login1\n{line}\n")
    with pytest.raises(BadInput, match=f"more than {nodes.MAX_NODES:,} nodes"):
        nodes.read_hosts_file(hosts)
    with pytest.raises(BadInput, match=f"more than {nodes.MAX_NODES:,} nodes"):
        nodes.expand(line)


def test_the_cap_counts_the_whole_file(tmp_path: Path, no_clustershell: None) -> None:
    hosts = tmp_path / "hosts"
    per_line = nodes.MAX_NODES // 4 + 1
    hosts.write_text("".join(f"r{i}n[1-{per_line}]\n" for i in range(4)))
    with pytest.raises(BadInput, match="more than"):
        nodes.read_hosts_file(hosts)


def test_the_cli_refuses_with_exit_2_and_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hosts = tmp_path / "hosts"
    hosts.write_text("gpu[1-50000000]\n")
    code, _, err = run_cli(
        capsys, "fleet", "collect", "--hosts-file", str(hosts), "-o", str(tmp_path / "out")
    )
    assert code == 2
    assert err.count("\n") == 1, err
    assert f"more than {nodes.MAX_NODES:,} nodes" in err
    assert not (tmp_path / "out").exists()


def test_node_sets_within_the_cap_still_expand() -> None:
    assert nodes.expand("gpu[01-04],login1") == ["gpu01", "gpu02", "gpu03", "gpu04", "login1"]
    assert len(nodes.expand("n[1-100]-ib[0-1]")) == 200
    assert len(nodes.expand(f"n[1-{nodes.MAX_NODES}]")) == nodes.MAX_NODES
