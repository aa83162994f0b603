"""Usage errors: one ``envsnap: error:`` line and the ``--help`` hint, exit 2, for every command.

Click's own form is four lines (Usage, Try, a blank line, Error) with the error last; envsnap's
other errors are one line, so usage errors are too, with the hint under it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from envsnap import cli
from envsnap.errors import ExitCode

ENVSNAP = [sys.executable, "-m", "envsnap"]


@pytest.mark.parametrize(
    ("args", "command", "error"),
    [
        (["frobnicate"], "envsnap", "No such command 'frobnicate'."),
        (["run", "--intervl", "0.5", "--", "true"], "envsnap run", "No such option '--intervl'."),
        (["save", "--timeout-scale", "0"], "envsnap save", "Invalid value for '--timeout-scale'"),
        (["check", "--fail-on", "fatal"], "envsnap check", "Invalid value for '--fail-on'"),
        (["diff", "one.yaml"], "envsnap diff", "diff needs at least two snapshot files"),
        (["rollback", "s.yaml", "--yes"], "envsnap rollback", "--yes only goes with --apply"),
        (["check", "--fail-on", "breaking"], "envsnap check", "--fail-on breaking grades changes"),
        (["import", "nonsense", "x.txt"], "envsnap import", "Invalid value for '{auto|collect-env|"),
        (["show", "s.yaml", "--no-frameworks"], "envsnap show", "--no-frameworks only applies to the live"),
        (["watch"], "envsnap watch", "Missing option '--pid'."),
        (["tui", "--interval", "0"], "envsnap tui", "Invalid value for '--interval'"),
    ],
)
def test_one_line_and_the_hint(
    args: list[str], command: str, error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.run(args) == ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    assert captured.out == ""
    first, hint = captured.err.splitlines()
    assert first.startswith(f"envsnap: error: {error}"), first
    assert hint == f"Try '{command} --help' for help."


def test_an_unknown_option_of_run_is_not_run_as_the_command(tmp_path: Path) -> None:
    # docs/usage/cli.md: unknown options before `--` are usage errors (exit 2); nothing runs.
    done = subprocess.run(
        [*ENVSNAP, "run", "--intervl", "0.5", "--", "touch", "ran"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == ExitCode.BAD_INPUT
    assert done.stderr.splitlines() == [
        "envsnap: error: No such option '--intervl'. Did you mean '--interval'?",
        "Try 'envsnap run --help' for help.",
    ]
    assert not (tmp_path / "ran").exists()


def test_the_commands_own_options_still_pass_through(tmp_path: Path) -> None:
    # Options end at the command's first word, so `-c` belongs to sh, not to envsnap.
    done = subprocess.run(
        [*ENVSNAP, "run", "--no-report", "--no-status", "sh", "-c", "exit 5"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 5, done.stderr
