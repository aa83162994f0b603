"""What every command shares: click settings, consoles, progress, and the small CLI-contract helpers."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

FORMATS = ("text", "json", "markdown")


def output_options(markdown: str) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """``--json`` and ``--format text|json|markdown``, the same on every reporting command.

    The command receives one ``fmt`` (``--json`` folded in), so no command can treat the two apart.
    ``markdown`` says what the Markdown is for, in the option's help.
    """

    def decorate(command: Callable[..., int]) -> Callable[..., int]:
        @functools.wraps(command)
        def folded(*args: Any, as_json: bool, fmt: str, **kwargs: Any) -> int:
            return command(*args, fmt="json" if as_json else fmt, **kwargs)

        with_format = click.option(
            "--format",
            "fmt",
            type=click.Choice(FORMATS),
            default="text",
            show_default=True,
            help=f"text, json (the same as --json), or markdown: {markdown}.",
        )(folded)
        return click.option("--json", "as_json", is_flag=True, help="Same as --format json.")(with_format)

    return decorate


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


def mismatch_warning(files: Sequence[str]) -> str | None:
    """One line for stderr naming every file whose stored fingerprint was wrong, or None."""
    if not files:
        return None
    shown = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    from envsnap.snapshot.finalize import MISMATCH

    return f"envsnap: warning: {shown}: {MISMATCH}"


def warn_edited(files: Sequence[str]) -> None:
    """One stderr line for snapshot files whose stored fingerprint does not match their content."""
    from envsnap.snapshot.safe_text import one_line

    warning = mismatch_warning([one_line(name) for name in files])
    if warning:
        click.echo(warning, err=True)
