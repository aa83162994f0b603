"""What ``diff`` and ``check --against`` do with the files they read: redact, re-fingerprint, label."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest

from envsnap import cli
from envsnap.errors import ExitCode
from envsnap.snapshot import store
from envsnap.snapshot.fingerprint import fingerprint
from envsnap.snapshot.model import DeviceSample, Environment, Sample, Snapshot
from tests.fakes.diff_snapshots import BASE_PACKAGES, DATA, V100S_X8, make, with_nvidia

TOKEN = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"
"""Shaped like a Hugging Face token (hf_ + 34 characters); not a real one."""


def _hand_edited(snapshot: Snapshot, path: Path, **variables: str) -> Path:
    """A file someone edited: a secret pasted into the environment, the old fingerprint left as it was."""
    env = Environment(status="ok", variables={"CUDA_HOME": "/usr/local/cuda-12.1", **variables})
    path.write_text(store.dumps(msgspec.structs.replace(snapshot, environment=env)), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_diff_redacts_secrets_in_every_format(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edited = _hand_edited(make(), tmp_path / "edited.yaml", HF_TOKEN=TOKEN, NCCL_DEBUG=f"INFO token={TOKEN}")
    good = store.save(make(), tmp_path / "good.yaml")
    assert cli.run(["diff", str(good), str(edited), "--format", fmt]) == ExitCode.FINDINGS
    assert cli.run(["diff", str(good), str(good), str(edited), "--format", fmt]) == ExitCode.FINDINGS
    assert cli.run(["check", "--against", str(edited), str(good)]) == ExitCode.OK  # minor changes only
    captured = capsys.readouterr()
    assert TOKEN not in captured.out + captured.err
    assert "HF_TOKEN" in captured.out
    assert "<redacted>" in captured.out


def test_an_edited_fingerprint_is_recomputed_and_reported_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = make()
    forged = msgspec.structs.replace(
        with_nvidia(make(), driver_version="535.86.05"), fingerprint=original.fingerprint
    )
    forged_path = tmp_path / "forged.yaml"
    forged_path.write_text(store.dumps(forged), encoding="utf-8")
    good = store.save(original, tmp_path / "good.yaml")
    assert cli.run(["diff", str(good), str(forged_path), "--json"]) == ExitCode.FINDINGS
    captured = capsys.readouterr()
    summary = json.loads(captured.out)["summary"]
    assert summary["old"]["fingerprint"] == original.fingerprint
    assert summary["new"]["fingerprint"] == fingerprint(forged)
    assert summary["new"]["fingerprint"] != original.fingerprint
    warnings = captured.err.strip().splitlines()
    assert warnings == [
        f"envsnap: warning: {forged_path}: stored fingerprint does not match the content "
        "(edited by hand?); using the recomputed one"
    ]
    assert cli.run(["check", "--against", str(forged_path), str(good), "--json"]) == ExitCode.FINDINGS
    captured = capsys.readouterr()
    assert json.loads(captured.out)["summary"]["old"]["fingerprint"] == fingerprint(forged)
    assert "stored fingerprint does not match" in captured.err


def test_saved_files_raise_no_fingerprint_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = store.save(make(), tmp_path / "a.yaml")
    b = store.save(with_nvidia(make(), driver_version="535.86.05"), tmp_path / "b.yaml")
    assert cli.run(["diff", str(a), str(b)]) == ExitCode.FINDINGS
    assert capsys.readouterr().err == ""


def _v100s_temperatures_c() -> list[float]:
    """The gpu_temp readings of the eight V100S in the real capture (66, 58, 57, ... C)."""
    xml = (DATA / V100S_X8).read_text(encoding="utf-8")
    return [float(value) for value in re.findall(r"<gpu_temp>(\d+) C</gpu_temp>", xml)]


def _with_telemetry(snapshot: Snapshot, temperature_c: float) -> Snapshot:
    device = DeviceSample(vendor="nvidia", index=0, name="Tesla V100S-PCIE-32GB", temperature_c=temperature_c)
    return msgspec.structs.replace(
        snapshot, telemetry=Sample(captured_at="2026-11-29T12:00:00Z", devices=(device,))
    )


def test_only_telemetry_implies_include_telemetry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two readings of one V100S model: GPU 0's and GPU 1's temperatures from the same capture."""
    first, second = _v100s_temperatures_c()[:2]
    a = store.save(_with_telemetry(make(gpus=V100S_X8), first), tmp_path / "a.yaml")
    b = store.save(_with_telemetry(make(gpus=V100S_X8), second), tmp_path / "b.yaml")
    assert cli.run(["diff", str(a), str(b)]) == ExitCode.OK
    capsys.readouterr()
    assert cli.run(["diff", str(a), str(b), "--only", "telemetry", "--json"]) == ExitCode.FINDINGS
    changes = json.loads(capsys.readouterr().out)["changes"]
    assert [(c["layer"], c["old"], c["new"]) for c in changes] == [("telemetry", 66.0, 58.0)]
    cli.run(["diff", "--help"])
    assert "implies --include-telemetry" in " ".join(capsys.readouterr().out.split())


def test_check_help_states_both_fail_on_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    cli.run(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "[default: error; with --against: breaking]" in text
    assert "[default: error]" not in text


def test_fleet_labels_name_the_file_when_hosts_repeat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [store.save(make(), tmp_path / f"{day}.yaml") for day in ("mon", "tue")]
    files.append(store.save(with_nvidia(make(), driver_version="535.86.05"), tmp_path / "wed.yaml"))
    assert cli.run(["diff", *map(str, files), "--json"]) == ExitCode.FINDINGS
    data = json.loads(capsys.readouterr().out)
    assert data["hosts"] == ["gpu-a (mon.yaml)", "gpu-a (tue.yaml)", "gpu-a (wed.yaml)"]
    assert data["fields"][0]["deviants"] == ["gpu-a (wed.yaml)"]


def test_fleet_json_says_when_the_majority_is_absent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = (*BASE_PACKAGES, ("six", "1.17.0", ()))
    files = [store.save(make(hostname=f"gpu-{i}"), tmp_path / f"{i}.yaml") for i in range(3)]
    files.append(store.save(make(hostname="gpu-odd", rows=rows), tmp_path / "odd.yaml"))
    assert cli.run(["diff", *map(str, files), "--json"]) == ExitCode.FINDINGS
    (six,) = json.loads(capsys.readouterr().out)["fields"]
    assert six["path"] == "packages[six]"
    assert six["majority"] is None
    assert six["majority_absent"] is True
    assert six["absent"] == ["gpu-0", "gpu-1", "gpu-2"]
    assert six["tie"] is False
    assert six["values"]["gpu-odd"] == "1.17.0"
    assert cli.run(["diff", *map(str, files)]) == ExitCode.FINDINGS
    assert "(absent) (3/4)" in capsys.readouterr().out


def test_fleet_text_flags_a_tie(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = [
        store.save(with_nvidia(make(hostname=f"gpu-{i}"), driver_version=version), tmp_path / f"{i}.yaml")
        for i, version in enumerate(["535.54.03", "535.86.05", "535.54.03", "535.86.05"])
    ]
    assert cli.run(["diff", *map(str, files)]) == ExitCode.FINDINGS
    assert "535.54.03 (2/4, tie)" in capsys.readouterr().out
    assert cli.run(["diff", *map(str, files), "--json"]) == ExitCode.FINDINGS
    assert json.loads(capsys.readouterr().out)["fields"][0]["tie"] is True
