"""The real ``envsnap`` command in a real terminal (tmux): probe this machine, switch tabs, save, quit.

Nothing is faked: the probes run against this machine, the snapshot is written to a temporary
working directory. The tmux server runs on a private socket, so other tmux sessions on the
machine are never touched, and it is killed in teardown.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path

import pytest

from envsnap.snapshot import store

WIDTH, HEIGHT = 100, 30


class Tmux:
    """One tmux server on a private socket, with one session running a command."""

    def __init__(self, cwd: Path) -> None:
        self.socket = f"envsnap-test-{uuid.uuid4().hex[:10]}"
        self.session = "envsnap"
        self.cwd = cwd

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10, check=False
        )

    def start(self, command: str) -> None:
        done = self.run(
            "new-session", "-d", "-s", self.session, "-x", str(WIDTH), "-y", str(HEIGHT), "-c", str(self.cwd),
            "-e", "TERM=xterm-256color", command,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.session).stdout

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.session, *keys)

    def alive(self) -> bool:
        return self.run("has-session", "-t", self.session).returncode == 0

    def wait(self, condition: Callable[[], bool], what: str, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen:\n{self.screen()}")
            time.sleep(0.1)

    def wait_text(self, text: str, timeout_s: float = 60.0) -> str:
        self.wait(lambda: text in self.screen(), repr(text), timeout_s)
        return self.screen()

    def kill(self) -> None:
        self.run("kill-server")


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    assert shutil.which("tmux"), "tmux is needed for this test (apt-get install tmux)"
    session = Tmux(tmp_path)
    try:
        yield session
    finally:
        session.kill()


@pytest.mark.slow
def test_envsnap_in_tmux(tmux: Tmux, tmp_path: Path) -> None:
    torch_version = version("torch")  # what the framework probe will report, without importing torch here
    tmux.start(f"{sys.executable} -m envsnap tui")
    tmux.wait_text("Overview")
    screen = tmux.wait_text(f"torch {torch_version}", timeout_s=120)  # the framework probe imports torch
    tmux.wait_text(socket.gethostname())
    assert "Host" in screen
    assert "PyTorch" in screen

    tmux.keys("2")
    tmux.wait_text("No GPU telemetry on this host")  # this machine has no GPU driver
    tmux.keys("3")
    # The packages table, filled from the real python probe: "N of N · sorted by name" with N > 0.
    tmux.wait(
        lambda: re.search(r"\b([1-9]\d*) of \1 · sorted by name", tmux.screen()) is not None, "packages"
    )
    tmux.keys("5")
    tmux.wait_text("No snapshots in snapshots/ yet")

    tmux.keys("s")
    tmux.wait(lambda: any((tmp_path / "snapshots").glob("*.yaml")), "the saved snapshot file")
    tmux.wait_text("Snapshot saved")
    saved = store.load(next((tmp_path / "snapshots").glob("*.yaml")))
    assert saved.host is not None
    assert saved.host.hostname == socket.gethostname()

    tmux.keys("q")
    tmux.wait(lambda: not tmux.alive(), "envsnap to quit", timeout_s=15)


@pytest.mark.slow
def test_fast_tab_keys_in_tmux_end_on_the_last_digit(tmux: Tmux) -> None:
    """Issue 24: the keys of the report, sent in one burst to a real terminal, end on Checks and stay."""
    tmux.start(f"{sys.executable} -m envsnap tui --no-frameworks")
    tmux.wait_text("Fingerprint", timeout_s=120)  # probing done: the Overview is complete

    def on_checks() -> bool:
        screen = tmux.screen()
        return "No findings" in screen or (" info" in screen and "Fingerprint" not in screen)

    tmux.keys(*"123451234534254")
    tmux.wait(on_checks, "the Checks tab")
    time.sleep(1.0)  # had focus kept bouncing, the tab would have moved on by now
    screen = tmux.screen()
    assert on_checks(), screen
    assert "filter by name" not in screen  # not the Packages tab
    assert "Fingerprint" not in screen  # not the Overview
    tmux.keys("q")
    tmux.wait(lambda: not tmux.alive(), "envsnap to quit", timeout_s=15)
