"""``envsnap report`` pasted back: the same snapshot, fingerprint and findings, however it was pasted.

The round trip is asserted for every example snapshot (snapshots/examples/), the stub two-H100
host (the real nvidia-ml-py over tests/fakes/nvml_stub.c, in a subprocess), AMD hosts read by the
real probe from recorded sysfs trees and through the fake amdsmi over real amd-smi captures, and
this machine itself. "Pasted" covers rendered-and-copied, ``> `` quoted, CRLF, trailing spaces
stripped (tests/report/paste.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from envsnap import api, cli
from envsnap.probes.amd import probe as amd
from envsnap.probes.base import ProbeContext
from envsnap.render.report import render_report
from envsnap.rules import evaluate
from envsnap.snapshot.finalize import checked, finalize
from envsnap.snapshot.model import Accelerators, Sample, Snapshot
from tests.factories import make_snapshot
from tests.fakes import fake_amdsmi
from tests.fakes.nvml_stub import build_nvml_stub
from tests.report.paste import PASTES

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "snapshots" / "examples").glob("*.yaml"))
SYSFS = REPO / "tests" / "data" / "sysfs"


def _amd_host(reading: amd.AmdReading) -> Snapshot:
    telemetry = Sample(captured_at="2026-12-01T00:00:00Z", devices=reading.telemetry)
    return finalize(make_snapshot(accelerators=Accelerators(amd=reading.info), telemetry=telemetry))


def _amd_hosts() -> dict[str, Snapshot]:
    ctx = ProbeContext(root=SYSFS / "mi100x4", environ={})
    smi = ProbeContext(root=Path("/nonexistent"), environ={})
    return {
        "amd-mi100x4-sysfs": _amd_host(amd.probe(ctx)),
        "amd-mi250-amdsmi": _amd_host(amd.probe(smi, session=fake_amdsmi.session(fake_amdsmi.mi250_host()))),
    }


def _assert_round_trip(original: Snapshot, tmp_path: Path) -> None:
    findings = evaluate(original)
    for fmt in ("markdown", "text"):
        report = render_report(original, findings, fmt)
        assert len(report) < 65_536
        for name, paste in PASTES.items():
            if name.startswith("rendered") and fmt == "text":
                continue  # plain text is not rendered by anything
            path = tmp_path / f"pasted-{fmt}-{name}.txt"
            path.write_bytes(paste(report).encode("utf-8"))
            back = api.load(path)
            assert back == original, (fmt, name)
            assert back.fingerprint == original.fingerprint
            assert evaluate(back) == findings


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_snapshot_comes_back_whole(example: Path, tmp_path: Path) -> None:
    original, edited = checked(api.load(example))
    assert not edited
    _assert_round_trip(original, tmp_path)


def test_there_are_examples_to_test() -> None:
    assert EXAMPLES


@pytest.mark.parametrize("host", ["amd-mi100x4-sysfs", "amd-mi250-amdsmi"])
def test_amd_hosts_come_back_whole(host: str, tmp_path: Path) -> None:
    original = _amd_hosts()[host]
    assert original.accelerators is not None
    assert original.accelerators.amd is not None
    assert original.accelerators.amd.devices
    _assert_round_trip(original, tmp_path)


def _envsnap(*argv: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envsnap", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
        check=False,
    )


def _check_json(done: subprocess.CompletedProcess[str]) -> dict[str, object]:
    assert done.returncode in (0, 1), done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


@pytest.mark.slow
def test_the_stub_two_h100_host_comes_back_whole(tmp_path: Path) -> None:
    stub = build_nvml_stub(tmp_path / "stub")
    env = dict(os.environ, LD_LIBRARY_PATH=str(stub))
    done = _envsnap("report", "--no-frameworks", "-o", "report.md", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "2× NVIDIA H100 80GB HBM3 \\(CC 9.0\\)" in report  # Markdown-escaped
    assert "NVIDIA 590.48.01" in report
    live = _check_json(_envsnap("check", "--json", "--no-frameworks", cwd=tmp_path, env=env))
    for name, paste in PASTES.items():
        pasted = tmp_path / f"{name}.md"
        pasted.write_text(paste(report), encoding="utf-8", newline="")
        back = _check_json(_envsnap("check", "--json", str(pasted), cwd=tmp_path))  # no stub needed
        assert back == live, name
    shown = _envsnap("show", "--json", str(tmp_path / "quoted+crlf.md"), cwd=tmp_path)
    devices = json.loads(shown.stdout)["accelerators"]["nvidia"]["devices"]
    assert [d["name"] for d in devices] == ["NVIDIA H100 80GB HBM3"] * 2


@pytest.mark.slow
def test_this_machine_comes_back_whole(tmp_path: Path) -> None:
    done = _envsnap("report", "-o", "report.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    live = _check_json(_envsnap("check", "--json", cwd=tmp_path))
    for name in ("raw", "rendered", "quoted+crlf"):
        pasted = tmp_path / f"{name}.md"
        pasted.write_text(PASTES[name](report), encoding="utf-8", newline="")
        assert _check_json(_envsnap("check", "--json", str(pasted), cwd=tmp_path)) == live, name


def test_diff_of_a_pasted_report_against_its_snapshot_is_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = EXAMPLES[0]
    assert cli.run(["report", str(example), "-o", str(tmp_path / "r.md")]) == 0
    (tmp_path / "pasted.md").write_text(PASTES["rendered+quoted"]((tmp_path / "r.md").read_text()))
    capsys.readouterr()
    assert cli.run(["diff", "--json", str(example), str(tmp_path / "pasted.md")]) == 0
    assert json.loads(capsys.readouterr().out)["changes"] == []


def test_import_auto_writes_the_snapshot_a_report_carries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = EXAMPLES[0]
    original = checked(api.load(example))[0]
    (tmp_path / "pasted.md").write_text(PASTES["quoted"](render_report(original, evaluate(original))))
    assert cli.run(["import", "auto", str(tmp_path / "pasted.md"), "-o", str(tmp_path / "out.yaml")]) in (
        0,
        1,
    )
    assert api.load(tmp_path / "out.yaml").fingerprint == original.fingerprint


def test_the_tui_opens_a_pasted_report_as_the_snapshot(tmp_path: Path) -> None:
    from envsnap.documents import load_document

    example = EXAMPLES[0]
    original = checked(api.load(example))[0]
    report = render_report(original, evaluate(original))
    for name in ("rendered", "quoted+crlf"):
        path = tmp_path / f"{name}.md"
        path.write_text(PASTES[name](report), encoding="utf-8", newline="")
        assert load_document(path) == original, name


def test_the_text_format_reads_back_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    example = EXAMPLES[0]
    assert cli.run(["report", str(example), "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert "<details>" not in text
    assert "|---|" not in text
    (tmp_path / "mail.txt").write_text(PASTES["quoted"](text))
    assert api.load(tmp_path / "mail.txt") == checked(api.load(example))[0]


def test_struct_equality_is_a_real_check() -> None:
    # The round trip compares whole snapshots: one changed field must make them differ.
    snapshot = _amd_hosts()["amd-mi100x4-sysfs"]
    assert snapshot.host is not None
    changed = msgspec.structs.replace(snapshot, host=msgspec.structs.replace(snapshot.host, kernel="6.0"))
    assert changed != snapshot
