"""ProbeContext and the small helpers every probe shares."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from envsnap.probes.base import ProbeContext, read_text, run_command


def test_own_interpreter_is_this_environment_not_just_this_binary(tmp_path: Path) -> None:
    assert ProbeContext().is_own_interpreter
    # A venv's bin/python is a symlink to the same binary, but it is another environment.
    other = tmp_path / "bin" / "python"
    other.parent.mkdir()
    os.symlink(os.path.realpath(sys.executable), other)
    assert not ProbeContext(python=str(other)).is_own_interpreter
    assert not ProbeContext(python=str(tmp_path / "missing" / "python")).is_own_interpreter


def test_run_command_never_raises() -> None:
    assert run_command(["/nonexistent/tool"], timeout_s=1).error == "/nonexistent/tool not found"
    slow = run_command([sys.executable, "-c", "import time; time.sleep(5)"], timeout_s=0.2)
    assert slow.returncode is None
    assert slow.error is not None
    assert "timed out after 0.2 s" in slow.error
    ok = run_command([sys.executable, "-c", "print('hi')"], timeout_s=30)
    assert (ok.returncode, ok.stdout) == (0, "hi\n")


def test_paths_map_under_the_root(tmp_path: Path) -> None:
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "version").write_text("Linux version 6.1\n")
    ctx = ProbeContext(root=tmp_path)
    assert read_text(ctx.path("/proc/version")) == "Linux version 6.1\n"
    assert read_text(ctx.path("/proc/absent")) is None
