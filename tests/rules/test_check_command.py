"""``envsnap check``: exit codes, --fail-on, --json, bad input, the live machine, and the NVML stub."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from envsnap.cli import run
from envsnap.probes.base import ProbeContext
from envsnap.probes.nvidia import probe as nvidia_probe
from envsnap.probes.toolkits import probe as toolkits
from envsnap.snapshot import store
from envsnap.snapshot.finalize import finalize
from envsnap.snapshot.model import Snapshot
from tests.fakes.nvml_stub import build_nvml_stub
from tests.installed_torch import installed_torch
from tests.rules.conftest import accelerators, cuda_toolkit, env, no_nvidia, nvidia, snapshot, torch


def _save(tmp_path: Path, snap: Snapshot, name: str = "s.yaml") -> str:
    path = tmp_path / name
    store.save(finalize(snap), path)
    return str(path)


def _error(tmp_path: Path) -> str:
    return _save(
        tmp_path, snapshot(accelerators=accelerators(nvidia=nvidia("h100")), frameworks=torch("2.13.0+cpu"))
    )


def _warning(tmp_path: Path) -> str:
    # H100 capture driver 590.48.01 under a cu132 torch: minor-version compatibility only.
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("h100")), frameworks=torch("2.13.0+cu132", "13.2")
    )
    return _save(tmp_path, snap)


def _info(tmp_path: Path) -> str:
    snap = snapshot(
        accelerators=accelerators(nvidia=no_nvidia()),
        toolkits=cuda_toolkit("13.0", "13.0.88", "/usr/local/cuda-13.0"),
    )
    return _save(tmp_path, snap)


@pytest.mark.parametrize(
    ("make", "fail_on", "code"),
    [
        (_error, "error", 1),
        (_warning, "error", 0),
        (_warning, "warning", 1),
        (_info, "warning", 0),
        (_info, "info", 1),
    ],
)
def test_exit_code_follows_fail_on(
    tmp_path: Path, make: object, fail_on: str, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    assert run(["check", path, "--fail-on", fail_on]) == code
    capsys.readouterr()


def test_default_fail_on_is_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", _error(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "Errors (1)" in out
    assert "cpu-only-build-on-gpu-host" in out


def test_clean_snapshot_prints_no_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _save(
        tmp_path,
        snapshot(accelerators=accelerators(nvidia=nvidia("h100")), frameworks=torch("2.13.0+cu130", "13.0")),
    )
    assert run(["check", path]) == 0
    assert capsys.readouterr().out.startswith("no findings")


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _error(tmp_path)
    assert run(["check", path, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["fingerprint"] == store.load(path).fingerprint
    (finding,) = data["findings"]
    assert set(finding) == {"id", "severity", "title", "evidence", "fix", "source"}
    assert finding["id"] == "cpu-only-build-on-gpu-host"


def test_secrets_in_a_hand_edited_file_are_not_echoed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "edited.yaml"
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("h100")),
        environment=env(CUDA_VISIBLE_DEVICES="", HF_TOKEN="hf_abcdefghijklmnopqrstuvwx"),
    )
    path.write_text(store.dumps(snap), encoding="utf-8")
    run(["check", str(path), "--json"])
    assert "hf_abcdefghijklmnopqrstuvwx" not in capsys.readouterr().out


@pytest.mark.parametrize("content", ["not: [valid", "schema: 99\nmeta: {}\n"])
def test_bad_input_is_exit_2_with_one_line(
    tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(content, encoding="utf-8")
    assert run(["check", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert run(["check", str(tmp_path / "missing.yaml")]) == 2
    assert run(["check", "--fail-on", "fatal"]) == 2


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--help"]) == 0
    out = capsys.readouterr().out
    assert "envsnap check --fail-on warning" in out
    assert "--json" in out


def test_live_check_on_this_machine(capsys: pytest.CaptureFixture[str]) -> None:
    """The live path end to end; on the development machine (CUDA 13.0 toolkit, no driver) it is info only."""
    assert run(["check", "--json", "--no-frameworks"]) == 0
    ids = {f["id"]: f for f in json.loads(capsys.readouterr().out)["findings"]}
    found_toolkit = toolkits.probe(ProbeContext()).cuda
    no_driver = nvidia_probe.probe(ProbeContext()).info.status == "skipped"
    if found_toolkit is not None and found_toolkit.ok and no_driver:
        assert ids["cuda-toolkit-without-driver"]["severity"] == "info"
    else:
        assert "cuda-toolkit-without-driver" not in ids


@pytest.mark.slow
def test_this_venvs_torch_on_two_stub_h100s(tmp_path: Path) -> None:
    """The real nvidia-ml-py over the NVML stub (two H100s) and this venv's torch.

    The CPU build (local wheel) is an error on that host (exit 1); the CUDA build (public index)
    must not be called CPU-only.
    """
    stub = build_nvml_stub(tmp_path / "stub")
    done = subprocess.run(
        [sys.executable, "-m", "envsnap", "check", "--json"],
        capture_output=True,
        text=True,
        env=dict(os.environ, LD_LIBRARY_PATH=str(stub)),
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    findings = {f["id"]: f for f in json.loads(done.stdout)["findings"]}
    if not installed_torch().cpu_only:
        assert done.returncode in (0, 1), done.stderr
        assert "cpu-only-build-on-gpu-host" not in findings
        return
    assert done.returncode == 1, done.stderr
    cpu = findings["cpu-only-build-on-gpu-host"]
    assert cpu["severity"] == "error"
    assert "2× NVIDIA H100 80GB HBM3" in cpu["title"]
    assert "--index-url https://download.pytorch.org/whl/cu130" in cpu["fix"]


@pytest.mark.parametrize(
    ("kind", "command"), [("envsnap-run", "envsnap run"), ("envsnap-watch", "envsnap watch")]
)
def test_a_run_or_watch_report_is_named_and_pointed_to_the_tui(
    tmp_path: Path, kind: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "report.yaml"
    path.write_text(f"# envsnap run report (schema 1)\nreport: {kind}\nschema: 1\nverdict: inconclusive\n")
    assert run(["check", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"envsnap: error: {path}: this is an `{command}` report, not a snapshot; "
        f"`envsnap tui {path}` shows it\n"
    )


def test_a_report_on_stdin_points_to_the_tui_without_a_file_name(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    stdin = io.TextIOWrapper(io.BytesIO(b"report: envsnap-watch\nschema: 1\nverdict: gpu-active\n"))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert run(["check", "-"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("`envsnap watch` report, not a snapshot; `envsnap tui REPORT` shows it\n")


def test_ignore_leaves_out_one_rule_and_refuses_unknown_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _error(tmp_path)  # cpu-only-build-on-gpu-host (error)
    assert run(["check", path, "--ignore", "cpu-only-build-on-gpu-host", "--json"]) == 0
    ids = {f["id"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert "cpu-only-build-on-gpu-host" not in ids
    assert run(["check", path, "--ignore", "cpu-only-bild"]) == 2
    first, hint = capsys.readouterr().err.splitlines()
    hint_ids = "(ids: `envsnap check --list-rules`)"
    assert first == f"envsnap: error: --ignore: no rule has the id cpu-only-bild {hint_ids}"
    assert hint == "Try 'envsnap check --help' for help."
