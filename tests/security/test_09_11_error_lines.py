"""9. Errors are one line, escaped, always (even on a terminal); 11. ``import pip-freeze`` too."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.conftest import run_cli

ESC_KEY = 'schema: 1\nmeta: {envsnap_version: x, captured_at: y}\n"bad\\nFORGED LINE\\e[31m": 1\n'


def _assert_one_safe_line(err: str) -> None:
    assert len(err.strip("\n").splitlines()) == 1, err
    assert "\x1b" not in err
    assert "\u202e" not in err


@pytest.mark.parametrize(
    "text",
    [
        ESC_KEY,
        "schema: 1\nkey: a\x1b[31mb\n",  # a raw control character: a YAML error that quoted it
        "schema: 1\nmeta:\n  envsnap_version: [\n",
        "schema: 1\nmeta: {envsnap_version: x, captured_at: y}\nhost: {status: 'ok\u202egnp.exe'}\n",
    ],
)
def test_a_hostile_file_gives_one_escaped_line(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_text(text)
    for argv in (["show", str(path)], ["check", str(path)], ["diff", str(path), str(path)]):
        code, _, err = run_cli(capsys, *argv)
        assert code == 2
        _assert_one_safe_line(err)


def test_a_hostile_file_name_is_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "show", str(tmp_path / "x\x1b]0;PWNED\x07\nforged.yaml"))
    assert code == 2
    _assert_one_safe_line(err)


def test_pip_freeze_import_never_echoes_the_line_raw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for line in (
        "torch==2.4.1\n\x1b]0;PWNED\x07 not a requirement\n",
        "-e git+https://x\x1b[2J\n",
        "foo>=1\x9b2J\n",
    ):
        path = tmp_path / "freeze.txt"
        path.write_text(line)
        code, _, err = run_cli(capsys, "import", "pip-freeze", str(path))
        assert code == 2
        _assert_one_safe_line(err)


def _stderr_on_a_terminal(*argv: str) -> tuple[int, str]:
    """Run envsnap with stderr on a pseudo-terminal (where click.echo no longer strips escapes)."""
    leader, follower = pty.openpty()
    result = subprocess.run(
        [sys.executable, "-m", "envsnap", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
        env={**os.environ, "TERM": "xterm-256color"},
        check=False,
        timeout=60,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return result.returncode, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


@pytest.mark.skipif(not hasattr(pty, "openpty"), reason="needs a pseudo-terminal")
def test_escaped_on_a_terminal_too(tmp_path: Path) -> None:
    """click.echo strips escapes only off a terminal: on one, envsnap must have escaped them already."""
    path = tmp_path / "hostile.yaml"
    path.write_text(ESC_KEY)
    code, err = _stderr_on_a_terminal("show", str(path))
    assert code == 2
    _assert_one_safe_line(err)


@pytest.mark.skipif(not hasattr(pty, "openpty"), reason="needs a pseudo-terminal")
def test_pip_freeze_errors_are_escaped_on_a_terminal(tmp_path: Path) -> None:
    path = tmp_path / "freeze.txt"
    path.write_text("-e git+https://x\x1b]0;PWNED\x07\n")
    code, err = _stderr_on_a_terminal("import", "pip-freeze", str(path))
    assert code == 2
    _assert_one_safe_line(err)
