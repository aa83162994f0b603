"""The ``envsnap`` command line: parse arguments, call the API, render. Nothing else lives here.

Contract (README, DESIGN.md): stdout is data, stderr is diagnostics; every reporting command has
``--json``; exit codes are ``errors.ExitCode``. Heavy modules (textual, torch, pynvml, amdsmi) are
imported inside the commands that need them, so ``--help`` and ``--version`` stay fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from envsnap import __version__
from envsnap.errors import BadInput, EnvsnapError, ExitCode

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


@click.group(context_settings=CONTEXT_SETTINGS, invoke_without_command=True)
@click.version_option(__version__, "-V", "--version", prog_name="envsnap")
@click.pass_context
def cli(ctx: click.Context) -> int:
    """Probe, check, snapshot, diff and roll back the ML stack of a GPU host.

    Run without a command on a terminal to open the live inspector (the TUI).

    \b
    Examples:
      envsnap save                        record this machine to snapshots/<host>-<time>.yaml
      envsnap show                        summarize the live machine
      envsnap check                       what is wrong with this stack, and how to fix it
      envsnap diff old.yaml new.yaml      what changed between two machines or two days

    \b
    Exit codes: 0 ok · 1 findings or differences · 2 bad usage or input · 3 envsnap failed.
    """
    if ctx.invoked_subcommand is not None:
        return int(ExitCode.OK)
    if sys.stdin.isatty() and sys.stdout.isatty():
        return int(ctx.invoke(tui_command))
    click.echo(ctx.get_help())
    return int(ExitCode.OK)


# ---------------------------------------------------------------------------- save / show


@cli.command("save", context_settings=CONTEXT_SETTINGS)
@click.option(
    "-o",
    "--output",
    metavar="PATH|-",
    help="Where to write the YAML ('-' for stdout). Default: snapshots/<host>-<UTC time>.yaml.",
)
@click.option(
    "--python",
    "python_path",
    metavar="PATH",
    help="Probe this interpreter's environment instead of envsnap's own (e.g. .venv/bin/python).",
)
@click.option("--anonymize", is_flag=True, help="Mask hostname, usernames in paths, serials and GPU UUIDs.")
@click.option("--no-frameworks", is_flag=True, help="Don't import ML frameworks in the target (faster).")
@click.option(
    "--timeout-scale",
    type=click.FloatRange(min=0.1),
    default=1.0,
    show_default=True,
    help="Multiply every probe's deadline (slow file systems, cold caches).",
)
def save_command(
    output: str | None, python_path: str | None, anonymize: bool, no_frameworks: bool, timeout_scale: float
) -> int:
    """Record this machine's stack as a reproducible YAML snapshot.

    Prints the written path on stdout and a one-line summary on stderr. Secrets in
    environment variables and URLs are always redacted.

    \b
    Examples:
      envsnap save
      envsnap save -o known-good.yaml --anonymize
      envsnap save --python ~/venvs/train/bin/python -o train-env.yaml
      envsnap save -o - | less
    """
    from envsnap import api, store
    from envsnap.render.summary import one_line_summary

    snapshot = api.collect(
        python=python_path,
        frameworks=not no_frameworks,
        anonymize=anonymize,
        timeout_scale=timeout_scale,
        progress=_progress_reporter(),
        findings=True,
    )
    if output == "-":
        sys.stdout.write(store.dumps(snapshot))
    else:
        path = Path(output) if output else api.default_snapshot_path(snapshot)
        store.save(snapshot, path)
        click.echo(str(path))
    _stderr_console().print(one_line_summary(snapshot), soft_wrap=True)
    return int(ExitCode.OK)


@cli.command("show", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshot", required=False, metavar="[SNAPSHOT]")
@click.option("--json", "as_json", is_flag=True, help="Print the whole snapshot as JSON on stdout.")
@click.option("--python", "python_path", metavar="PATH", help="Live mode: probe this interpreter's environment.")
@click.option("--no-frameworks", is_flag=True, help="Live mode: don't import ML frameworks (faster).")
def show_command(snapshot: str | None, as_json: bool, python_path: str | None, no_frameworks: bool) -> int:
    """Summarize a saved snapshot, or the live machine when no file is given.

    \b
    Examples:
      envsnap show                        the live machine
      envsnap show snapshots/gpu01.yaml   a saved snapshot
      envsnap show --json | jq .frameworks.torch
    """
    from envsnap import api
    from envsnap.redact import redact_snapshot

    if snapshot is None:
        data = api.collect(
            python=python_path, frameworks=not no_frameworks, progress=_progress_reporter(), findings=True
        )
    else:
        data = redact_snapshot(api.load(snapshot))  # a hand-edited file may hold secrets
    if as_json:
        from envsnap.render.data import to_json

        click.echo(to_json(data))
    else:
        from envsnap.render.summary import render_summary

        _stdout_console().print(render_summary(data))
    return int(ExitCode.OK)


def _stdout_console() -> Any:
    from rich.console import Console

    return Console(highlight=False)


def _progress_reporter() -> Any:
    """A callback that shows which probes are still running, when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None
    from envsnap.render.progress import ProbeSpinner

    return ProbeSpinner(_stderr_console())


# ---------------------------------------------------------------------------- tui


@cli.command("tui", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshot", required=False, metavar="[SNAPSHOT]")
def tui_command(snapshot: str | None = None) -> int:
    """Open the interactive inspector (live, or on a saved snapshot)."""
    raise BadInput("the TUI is not available in this build yet")


# ---------------------------------------------------------------------------- entry point


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: run the CLI and turn every outcome into an exit code."""
    code = run(argv)
    sys.stdout.flush()
    sys.exit(code)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code; errors become one line on stderr."""
    try:
        result = cli.main(args=list(argv) if argv is not None else None, prog_name="envsnap", standalone_mode=False)
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except click.ClickException as err:
        err.show()
        return int(ExitCode.BAD_INPUT)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("envsnap: interrupted", err=True)
        return 130
    except EnvsnapError as err:
        click.echo(f"envsnap: error: {err}", err=True)
        return int(err.exit_code)
    except BrokenPipeError:
        # The reader went away (envsnap show | head): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return int(ExitCode.OK)
    except Exception as err:
        if os.environ.get("ENVSNAP_DEBUG"):
            raise
        click.echo(
            f"envsnap: internal error: {type(err).__name__}: {err} (set ENVSNAP_DEBUG=1 for a traceback)", err=True
        )
        return int(ExitCode.INTERNAL)
    return int(result) if isinstance(result, int) else int(ExitCode.OK)
