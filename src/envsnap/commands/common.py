"""What every command shares: click settings, consoles, progress, and the small CLI-contract helpers."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import click

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def stderr_console() -> Any:
    """The Rich console for diagnostics and progress (stderr)."""
    from envsnap.render.console import stderr_console as console

    return console()


def warn_failed_probes(snapshot: Any) -> None:
    """Say on stderr which probes failed, so a green check can't hide a layer that wasn't read."""
    for run in snapshot.meta.probes or ():
        if run.status == "failed":
            click.echo(f"envsnap: warning: the {run.name} probe failed: {run.reason}", err=True)


def refuse_live_options(snapshot: str, **live_options: object) -> None:
    """Options that only shape a live probe make no sense with a saved snapshot: say so."""
    given = [name for name, value in live_options.items() if value]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        raise click.UsageError(f"{flags} only applies to the live machine, not to {snapshot}")


def print_out(renderable: Any) -> None:
    """A report on stdout: fitted to a terminal; off one (a pipe, a file) never wrapped, as diff's.

    Fingerprints, paths and URLs are copied out of piped output: a fold at column 80 splits them.
    """
    from envsnap.render.console import print_out
    from envsnap.render.diff import PIPED_WIDTH

    print_out(renderable, piped_width=PIPED_WIDTH)


def progress_reporter() -> Any:
    """A callback that shows which probes are still running, when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None
    from envsnap.render.progress import ProbeSpinner

    return ProbeSpinner(stderr_console())


def emit_output(output: Any) -> None:
    """Text (JSON, Markdown, one line) goes out verbatim; Rich tables unwrapped when piped."""
    from envsnap.render.diff import emit

    emit(output)


def warn_edited(files: Sequence[str]) -> None:
    """One stderr line for snapshot files whose stored fingerprint does not match their content."""
    from envsnap.compare.inputs import mismatch_warning
    from envsnap.render.safe_text import one_line

    warning = mismatch_warning([one_line(name) for name in files])
    if warning:
        click.echo(warning, err=True)
