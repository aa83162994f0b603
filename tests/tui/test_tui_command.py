"""``envsnap tui FILE`` refuses a bad file before the UI starts: one line on stderr, exit 2.

A full-screen UI that opens on a missing or hostile file, shows an error inside and exits 0 tells a
script nothing; every other command fails on bad input, so this one does too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from envsnap.errors import ExitCode
from tests.test_cli import _hostile_files

ENVSNAP = [sys.executable, "-m", "envsnap"]


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    files = dict(_hostile_files(tmp_path))
    files["missing"] = tmp_path / "missing.yaml"
    # A folder is a fleet folder (`envsnap fleet collect -o DIR`); one with neither an index nor
    # a snapshot in it is bad input like any unreadable file.
    not_a_fleet = tmp_path / "not-a-fleet"
    not_a_fleet.mkdir()
    (not_a_fleet / "notes.txt").write_text("hello\n")
    files["directory"] = not_a_fleet
    empty = tmp_path / "empty.yaml"
    empty.write_bytes(b"")
    files["empty"] = empty
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("schema: 1\nmeta: [unclosed\n", encoding="utf-8")
    files["bad-yaml"] = bad_yaml
    anchors = tmp_path / "anchors.yaml"
    anchors.write_text("schema: 1\nmeta: &m {envsnap_version: x}\nhost: *m\n", encoding="utf-8")
    files["anchors"] = anchors
    bad_report = tmp_path / "bad-report.yaml"
    bad_report.write_text("report: envsnap-run\nschema: 1\nverdict: [\n", encoding="utf-8")
    files["bad-run-report"] = bad_report
    return files


@pytest.fixture
def no_ui(monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting the UI fails the test: bad input must be refused before."""
    from envsnap.tui import app

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the UI was started")

    monkeypatch.setattr(app, "EnvsnapApp", refuse)


@pytest.mark.usefixtures("no_ui")
def test_bad_files_fail_before_the_ui_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from envsnap import cli

    for name, path in _bad_files(tmp_path).items():
        assert cli.run(["tui", str(path)]) == ExitCode.BAD_INPUT, name
        captured = capsys.readouterr()
        assert captured.out == "", name
        lines = captured.err.splitlines()
        assert len(lines) == 1, (name, captured.err)
        assert lines[0].startswith(f"envsnap: error: {path}"), (name, lines[0])
        assert "Traceback" not in captured.err


@pytest.mark.usefixtures("no_ui")
def test_a_newer_schema_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from envsnap import cli

    path = tmp_path / "future.yaml"
    path.write_text("schema: 99\nmeta: {}\n", encoding="utf-8")
    assert cli.run(["tui", str(path)]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith(f"envsnap: error: {path}: written by a newer envsnap (schema 99)")


def test_a_missing_file_as_a_user_runs_it(tmp_path: Path) -> None:
    done = subprocess.run(
        [*ENVSNAP, "tui", str(tmp_path / "missing.yaml")],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    assert done.returncode == ExitCode.BAD_INPUT, done.stderr
    assert done.stdout == ""  # no UI was drawn
    assert done.stderr.startswith(f"envsnap: error: {tmp_path / 'missing.yaml'}")
    assert len(done.stderr.splitlines()) == 1


@pytest.mark.usefixtures("no_ui")
def test_without_a_terminal_it_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """stdout not a tty (a pipe, a file, cron): one line and exit 2, not escape codes and a hang."""
    from envsnap import cli

    assert cli.run(["tui"]) == ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "envsnap: error: envsnap tui needs a terminal: standard output is not one "
        "(for text, use `envsnap show`, `envsnap check` or `envsnap diff`)"
    ]


def test_piped_as_a_user_runs_it(tmp_path: Path) -> None:
    """`envsnap tui | cat` in a real process: exits at once with the one line, writes nothing to the pipe."""
    done = subprocess.run(
        [*ENVSNAP, "tui", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    assert done.returncode == ExitCode.BAD_INPUT, done.stderr
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert "needs a terminal" in done.stderr
