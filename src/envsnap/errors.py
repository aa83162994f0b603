"""Exit codes and the errors that carry them; both are API (scripts and CI key on them)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes shared by every command."""

    OK = 0
    """Success; no findings at or above ``--fail-on``; no differences."""
    FINDINGS = 1
    """Findings at or above ``--fail-on``, or differences (like diff(1))."""
    BAD_INPUT = 2
    """Usage error, or input that cannot be read or trusted."""
    INTERNAL = 3
    """envsnap itself failed."""


class EnvsnapError(Exception):
    """An expected failure: the CLI prints its message on one line and exits with ``exit_code``."""

    exit_code: ExitCode = ExitCode.INTERNAL


class BadInput(EnvsnapError):
    """Input that cannot be read, parsed or trusted (exit code 2)."""

    exit_code = ExitCode.BAD_INPUT
