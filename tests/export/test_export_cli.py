"""``envsnap export prometheus``: stdout or an atomically replaced file, promtool-clean, one-line errors."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from envsnap import cli
from tests.export.engine import missing
from tests.export.helpers import node, one, promtool, save, series, with_driver


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.run(["export", "prometheus", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """A known-good snapshot and the same node after a driver downgrade."""
    known = node()
    return save(known, tmp_path / "known.yaml"), save(
        with_driver(known, "550.54.15"), tmp_path / "today.yaml"
    )


def test_stdout_by_default_with_drift(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    known, today = files
    code, out, err = _run(capsys, str(today), "--against", str(known))
    assert (code, err) == (0, "")
    assert one(out, "envsnap_drift_changes", impact="breaking", layer="driver") == 1
    assert one(out, "envsnap_stack_info", driver="550.54.15") == 1
    assert one(out, "envsnap_findings", id="cpu-only-build-on-gpu-host") == 1
    assert _run(capsys, str(today), "-o", "-")[1].startswith("# HELP envsnap_build_info")


def test_output_file_is_replaced_atomically_keeping_its_mode(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    known, today = files
    out = tmp_path / "textfile" / "envsnap.prom"
    out.parent.mkdir()
    out.write_text("old\n")
    os.chmod(out, 0o640)
    inode = out.stat().st_ino
    code, stdout, _ = _run(capsys, str(today), "--against", str(known), "-o", str(out))
    assert (code, stdout) == (0, "")
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert out.stat().st_ino != inode  # a new file renamed into place, never rewritten in place
    assert sorted(p.name for p in out.parent.iterdir()) == ["envsnap.prom"]  # no temp file left
    assert one(out.read_text(), "envsnap_drift_changes", impact="breaking", layer="driver") == 1


@pytest.mark.skipif(missing("promtool") is not None, reason=str(missing("promtool")))
def test_promtool_check_metrics_passes_on_the_textfile(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    known, today = files
    out = tmp_path / "envsnap.prom"
    assert _run(capsys, str(today), "--against", str(known), "-o", str(out))[0] == 0
    done = promtool("check", "metrics", stdin=out.read_text())
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout + done.stderr == ""  # not even a lint warning


def test_live_capture_of_this_machine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "envsnap.prom"
    code, _, _ = _run(capsys, "--no-frameworks", "-o", str(out))
    assert code == 0
    text = out.read_text()
    ((labels, _),) = series(text, "envsnap_stack_info")
    assert labels["fingerprint"].startswith("sha256:")
    probes = {labels["probe"] for labels, _ in series(text, "envsnap_probe_status")}
    assert {"host", "python"} <= probes


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--against", "{missing}"], "no such file"),
        (["{today}", "-o", "{tmp}/no/such/folder/envsnap.prom"], "no such folder"),
        (["{today}", "-o", "{tmp}"], "is a directory"),
        (["{today}", "--watch-dir", "{tmp}/nope"], "--watch-dir"),
        (["{today}", "--no-frameworks"], "only applies to the live machine"),
        (["--python", "{tmp}/nope/python"], "--python"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    files: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    _, today = files
    before = sorted(tmp_path.rglob("*"))
    values = {"missing": str(tmp_path / "missing.yaml"), "today": str(today), "tmp": str(tmp_path)}
    code, out, err = _run(capsys, *(arg.format(**values) for arg in argv))
    assert code == 2
    assert out == ""
    assert err.startswith("envsnap: error: ")
    assert message in err
    assert len(err.strip().splitlines()) <= 2  # the error, and at most the usage hint
    assert "Traceback" not in err
    assert sorted(tmp_path.rglob("*")) == before


def test_an_unreadable_known_good_fails_before_probing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "known.yaml"
    bad.write_text("schema: 2\nmeta: [not, a, mapping]\n")
    code, out, err = _run(capsys, "--against", str(bad))
    assert (code, out) == (2, "")
    assert err.startswith(f"envsnap: error: {bad}")
