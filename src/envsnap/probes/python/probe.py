"""The python probe: the target interpreter, its environment and its installed distributions.

The facts come from ``_target_env.py``, a standard-library-only script. For envsnap's own
interpreter it is imported and called in-process (no interpreter start-up); for any other
(``--python PATH``) its source is fed to that interpreter, which prints one JSON line. Running it
there, rather than reading the other environment's folders from here, is what makes the answer
right: ``sys.path``, ``.pth`` files, ``PYTHONPATH`` and user site-packages are resolved by the
interpreter that will import the code. Every way that can fail (missing, not executable, hung,
crashed, garbage on stdout) becomes a ``failed`` section with the reason.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
from dataclasses import dataclass
from importlib import resources
from typing import Any

import msgspec
from packaging.utils import canonicalize_name

from envsnap.probes.base import ProbeContext, run_command
from envsnap.probes.python import _target_env
from envsnap.snapshot.child_python import code_argv
from envsnap.snapshot.model import Package, PythonEnv

# Runs first in the target: refuse old interpreters with a clear line instead of a SyntaxError,
# drop the "" (current folder) entry that -c puts on sys.path so whatever folder envsnap was started
# in cannot leak into the target's answer, then run _target_env's source, read from stdin, as __main__.
# Kept valid Python 2 syntax on purpose, so even a Python 2 target reports why it is refused.
_BOOTSTRAP = """\
import sys
if sys.version_info < (3, 8):
    found = "%d.%d" % sys.version_info[:2]
    sys.stderr.write("envsnap needs Python >= 3.8 in the target interpreter, found " + found + "\\n")
    sys.exit(3)
if sys.path and sys.path[0] == "":
    del sys.path[0]
exec(compile(sys.stdin.read(), "<envsnap target>", "exec"), {"__name__": "__main__"})
"""


MIN_TARGET_PYTHON = (3, 8)
"""The oldest target interpreter ``_target_env.py`` runs on (the bootstrap above says the same)."""

# Valid in Python 2 and every Python 3, so an old interpreter still answers with its version.
_VERSION_QUERY = (
    'import sys; sys.stdout.write("envsnap-target-python %d.%d\\n" % tuple(sys.version_info[:2]))'
)
_VERSION_ANSWER = re.compile(r"^envsnap-target-python (\d+)\.(\d+)$", re.MULTILINE)


def interpreter_problem(python: str, *, timeout_s: float = 30.0) -> str | None:
    """Why ``python`` can't be the target of the probes, or None when it can.

    ``--python /bin/true`` (or ``/bin/sh``, or a Python 2.7) would otherwise "succeed" with no
    packages and three failed probes: one question answered only by a real, recent enough Python
    tells the two apart before a minute of probing. Costs one interpreter start.
    """
    result = run_command(code_argv(python, _VERSION_QUERY), timeout_s=timeout_s)
    if result.returncode is None:
        return f"could not be run: {result.error}"
    match = _VERSION_ANSWER.search(result.stdout)
    if match is None:
        answer = _error_line(result.stderr) if result.stderr.strip() else "no output"
        return (
            f"not a Python interpreter: `-c` with a version query {_exit_description(result.returncode)} "
            f"({answer[:200]})"
        )
    version = (int(match[1]), int(match[2]))
    if version < MIN_TARGET_PYTHON:
        return f"Python {version[0]}.{version[1]}; envsnap needs Python >= 3.8 in the target interpreter"
    return None


@dataclass(frozen=True)
class PythonReading:
    """The interpreter section and its installed distributions."""

    python: PythonEnv
    packages: tuple[Package, ...] | None


def probe(ctx: ProbeContext) -> PythonReading:
    """Describe the target interpreter and every distribution it can import.

    Command line equivalent: ``python -m pip list --format=json`` plus ``python -m site``.
    """
    if ctx.is_own_interpreter:
        return _reading(_target_env.collect(), "envsnap's interpreter")
    executable = shutil.which(ctx.python, path=ctx.environ.get("PATH"))
    if executable is None:
        if os.path.exists(ctx.python):
            return failed(f"interpreter is not executable: {ctx.python}")
        return failed(f"interpreter not found: {ctx.python}")
    result = run_command(
        code_argv(executable, _BOOTSTRAP),
        timeout_s=ctx.timeout_s,
        env=ctx.environ,
        input_text=_target_source(),
    )
    if result.returncode is None:
        return failed(f"interpreter {result.error}")  # e.g. "/x/bin/python timed out after 20 s"
    if result.returncode != 0:
        how = _exit_description(result.returncode)
        return failed(f"interpreter {ctx.python} {how}: {_error_line(result.stderr)}")
    last = _last_line(result.stdout)
    try:
        data = json.loads(last)
    except ValueError:
        return failed(f"interpreter {ctx.python} printed no environment report (last line: {last[:120]!r})")
    return _reading(data, ctx.python)


def failed(reason: str) -> PythonReading:
    """The reading recorded when the probe cannot finish."""
    return PythonReading(PythonEnv(status="failed", reason=reason), None)


def _target_source() -> str:
    return resources.files("envsnap.probes.python").joinpath("_target_env.py").read_text(encoding="utf-8")


def _reading(data: Any, origin: str) -> PythonReading:
    """Validate the target's report against the model; a malformed one is a failure, not a crash."""
    try:
        python = msgspec.convert({**data["python"], "status": "ok"}, PythonEnv)
        packages = msgspec.convert(data["packages"], tuple[Package, ...])
    except (msgspec.ValidationError, KeyError, TypeError) as err:
        return failed(f"unreadable environment report from {origin}: {err}")
    shadowed = python.shadowed
    if shadowed is not None:
        shadowed = tuple(sorted(shadowed, key=lambda s: (canonicalize_name(s.name), s.location)))
    python = msgspec.structs.replace(python, shadowed=shadowed)
    return PythonReading(python, tuple(sorted(packages, key=lambda p: canonicalize_name(p.name))))


def _exit_description(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with status {returncode}"


_ERROR_LINE = re.compile(r"^(?:Fatal Python error\b|[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)\b)")


def _error_line(stderr: str) -> str:
    """The line of a crash report that says what went wrong.

    That is the last line of a traceback, but a fatal start-up error ends in a thread dump
    ("<no Python frame>"), so prefer the last line that names an error, else the last line.
    """
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if _ERROR_LINE.match(line):
            return line
    return lines[-1] if lines else "(no output)"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"
