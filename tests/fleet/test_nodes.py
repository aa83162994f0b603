"""Node names, file names and capped output: where hostile node data is stopped."""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.errors import BadInput
from envsnap.fleet.collect import classify, parse_snapshot
from envsnap.fleet.nodes import check_name, expand, file_stem, inside, node_files, read_hosts_file
from envsnap.fleet.transport import NodeOutput, OutputBuffer
from envsnap.snapshot import store
from tests.fakes.diff_snapshots import make


@pytest.mark.parametrize(
    "name", ["-oProxyCommand=x", "../etc", "a b", "a/b", "", ".hidden", "x\x1b[2J", "n;rm", "a" * 300]
)
def test_names_that_could_be_options_paths_or_escapes_are_refused(name: str) -> None:
    with pytest.raises(BadInput, match="not a valid node name"):
        check_name(name, "test")


def test_node_sets_expand_like_clush() -> None:
    assert expand("gpu[01-03],login1") == ["gpu01", "gpu02", "gpu03", "login1"]
    with pytest.raises(BadInput):
        expand("gpu[01-")


def test_hosts_file_comments_sets_and_line_numbers(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    hosts.write_text("# rack 1\nn[1-2]  # two\n\nuser@n3\nn1\n")
    assert read_hosts_file(hosts) == ["n1", "n2", "user@n3"]
    hosts.write_text("n1\n$(reboot)\n")
    with pytest.raises(BadInput, match=r"hosts:2: not a valid node name"):
        read_hosts_file(hosts)


def test_file_names_never_leave_the_folder(tmp_path: Path) -> None:
    assert file_stem("../../etc/passwd") == "_.._etc_passwd"
    assert file_stem("fleet") == "fleet_"  # never the index
    files = node_files(["a/b", "a_b", "A_B"])
    assert files == {"a/b": "a_b.yaml", "a_b": "a_b-2.yaml", "A_B": "A_B-3.yaml"}
    for bad in ("../x.yaml", "/etc/passwd", "..", "a/b.yaml"):
        with pytest.raises(BadInput):
            inside(tmp_path, bad)
    assert inside(tmp_path, "n1.yaml") == tmp_path / "n1.yaml"


def test_output_buffer_keeps_the_start_of_stdout_and_the_end_of_stderr() -> None:
    out = OutputBuffer(10)
    for chunk in (b"12345", b"67890", b"abc"):
        out.add(chunk)
    assert out.value() == b"1234567890"
    assert out.truncated
    err = OutputBuffer(6, keep_end=True)
    for chunk in (b"first\n", b"last\n", b"x" * 50):
        err.add(chunk)
    assert err.value() == b"xxxxxx"
    assert err.truncated


@pytest.mark.parametrize(
    ("output", "status"),
    [
        (NodeOutput("n1", unreachable=True, stderr=b"ssh: connect: Connection refused\n"), "unreachable"),
        (NodeOutput("n1", timed_out=True), "timed-out"),
        (NodeOutput("n1", returncode=127, stderr=b"sh: 1: envsnap: not found\n"), "envsnap-missing"),
        (
            NodeOutput("n1", returncode=1, stderr=b"/usr/bin/python3: No module named envsnap\n"),
            "envsnap-missing",
        ),
        (NodeOutput("n1", returncode=3, stderr=b"envsnap: internal error: boom\n"), "probe-failed"),
        (NodeOutput("n1", returncode=0, stdout=b"schema: 1\nmeta: *a\n"), "probe-failed"),
        (NodeOutput("n1", returncode=0, stdout=b"\x00\x01"), "probe-failed"),
        (NodeOutput("../../x", returncode=0, stdout=b""), "probe-failed"),
    ],
)
def test_every_failure_gets_its_status(output: NodeOutput, status: str) -> None:
    result = classify(output)
    assert result.record.status == status
    assert result.snapshot is None
    assert "/" not in result.record.name


def test_a_good_snapshot_is_redacted_and_refingerprinted() -> None:
    planted = make(variables={"HF_TOKEN": "hf_" + "z" * 34})
    text = store.dumps(planted).replace("<redacted>", "hf_" + "z" * 34)  # a node that does not redact
    result = classify(NodeOutput("n1", returncode=0, stdout=text.encode()))
    assert result.record.status == "ok"
    assert result.snapshot is not None
    assert "z" * 34 not in store.dumps(result.snapshot)
    assert result.record.fingerprint == result.snapshot.fingerprint
    anonymized = parse_snapshot(text.encode(), "n1", anonymize=True)
    assert anonymized.host is not None
    assert anonymized.host.hostname != planted.host.hostname  # type: ignore[union-attr]


def test_reasons_are_one_line_capped_and_redacted() -> None:
    said = b"noise\n" + b"token=hunter2hunter2 " + b"y" * 5000 + b"\n"
    result = classify(NodeOutput("n1", returncode=2, stderr=said))
    reason = result.record.reason or ""
    assert len(reason) <= 300
    assert "hunter2hunter2" not in reason
    assert "\n" not in reason


def test_progress_line_counts_nodes_and_never_prints_their_names() -> None:
    import io

    from rich.console import Console

    from envsnap.render.fleet import FleetProgress

    progress = FleetProgress(Console(file=io.StringIO(), force_terminal=True), total=3)
    progress("n1\x1b[2J", "started")
    progress("n1\x1b[2J", "done")
    progress("n2", "failed")
    assert progress.text() == "collecting: 1 done · 1 failed · 1 pending"
    progress.stop()
