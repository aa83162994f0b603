"""What every probe receives, and the small helpers probes share.

A probe is a plain function ``probe(ctx: ProbeContext) -> Section`` that only reads the world.
It never prints, never exits and never raises for an absent library or device: absence is data
(``Section(status="skipped", reason=...)``). collector.py still guards every probe with a timeout and
a catch-all, so a bug or a hung driver call becomes a ``failed`` section, not a crash.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from envsnap.snapshot.model import DeviceSample


@dataclass(frozen=True)
class ProbeContext:
    """Inputs shared by all probes; tests point the roots at fixture trees."""

    python: str = sys.executable
    """Interpreter whose environment is probed (``--python``); envsnap's own by default."""
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    root: Path = Path("/")
    """Filesystem root for /proc, /sys, /etc, /opt and /usr reads."""
    timeout_s: float = 20.0
    """Limit for subprocesses a probe starts (framework import, nvcc, ...)."""
    frameworks: bool = True
    """False for ``--no-frameworks``: don't import ML frameworks in the target interpreter."""
    cache: bool = True
    """False for ``--no-cache``: probe the frameworks even when nothing they depend on changed."""

    @property
    def is_own_interpreter(self) -> bool:
        """Whether the target interpreter is the one envsnap runs in (same file, same environment).

        A venv's ``bin/python`` is a symlink to its base interpreter, so "same file" alone would
        call every venv built on this Python our own; the environment is the folder it sits in.
        """
        target, own = os.path.abspath(self.python), os.path.abspath(sys.executable)
        try:
            same_folder = os.path.samefile(os.path.dirname(target), os.path.dirname(own))
            return same_folder and os.path.samefile(target, own)
        except OSError:
            return False

    def path(self, absolute: str) -> Path:
        """Map an absolute path like ``/proc/cpuinfo`` under ``root``."""
        return self.root / absolute.lstrip("/")


@dataclass(frozen=True)
class CommandResult:
    """Outcome of a short external command."""

    returncode: int | None
    """None when the command could not be started or timed out."""
    stdout: str
    stderr: str
    error: str | None = None
    """Why there is no return code: "not found", "timed out after 5.0 s", ..."""


def run_command(
    argv: Sequence[str],
    *,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
    input_text: str | None = None,
) -> CommandResult:
    """Run a command without a shell and capture its output; never raises.

    Args:
        argv: the program and its arguments.
        timeout_s: the child is killed after this long.
        env: the environment to give the child (default: inherit).
        input_text: text sent to its standard input.

    Returns:
        The return code and output, or the reason there is none.
    """
    try:
        done = subprocess.run(
            list(argv),
            input=input_text,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            env=None if env is None else dict(env),
            check=False,
        )
    except FileNotFoundError:
        return CommandResult(None, "", "", error=f"{argv[0]} not found")
    except subprocess.TimeoutExpired:
        return CommandResult(None, "", "", error=f"{argv[0]} timed out after {timeout_s:g} s")
    except OSError as err:
        return CommandResult(None, "", "", error=f"{argv[0]}: {err.strerror or err}")
    return CommandResult(done.returncode, done.stdout, done.stderr)


def read_text(path: Path, limit: int = 1 << 20) -> str | None:
    """Read a small text file (sysfs, /proc, version files); None when it can't be read."""
    try:
        with path.open("rb") as handle:
            return handle.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return None


class TelemetrySource(Protocol):
    """One vendor backend the sampler polls."""

    name: str
    """Short backend name used in error messages: "nvml", "amdsmi", "sysfs", "fake"."""

    def read(self) -> tuple[DeviceSample, ...]:
        """Read every device once. May raise; the sampler records the error."""
        ...

    def close(self) -> None:
        """Release the backend (NVML shutdown and the like)."""
        ...
