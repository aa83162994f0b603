"""``envsnap serve``'s refusals: each one line and exit 2, before any probe or bind."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from envsnap import cli


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        port: int = sock.getsockname()[1]
        yield port


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "say what to serve: --metrics"),
        (["--metrics", "--listen", "9401"], "give HOST:PORT"),
        (["--metrics", "--listen", ":9401"], "give the address to bind"),
        (["--metrics", "--listen", "127.0.0.1:70000"], "out of range"),
        (["--metrics", "--against", "{tmp}/missing.yaml"], "no such file"),
        (["--metrics", "--watch-dir", "{tmp}/nope"], "--watch-dir"),
        (["--metrics", "--interval", "0.1"], "--interval"),
        (["--metrics", "--listen", "127.0.0.1:{port}"], "cannot bind"),
    ],
)
def test_serve_refuses_in_one_line(
    tmp_path: Path, taken_port: int, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code = cli.run(["serve", *(a.format(tmp=tmp_path, port=taken_port) for a in argv)])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    first, *rest = captured.err.splitlines()
    assert first.startswith("envsnap: error: ")
    assert message in first
    assert len(rest) <= 1  # at most the "Try 'envsnap serve --help'" hint
    assert "Traceback" not in captured.err
