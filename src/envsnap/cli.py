"""The ``envsnap`` command line: the group, the entry point, and the turning of outcomes into exit codes.

The subcommands live in ``envsnap.commands`` (one module per family); each parses its arguments,
calls the API and renders, nothing else.

Contract (docs/design.md, docs/usage/cli.md): stdout is data, stderr is diagnostics; every reporting
command has ``--json``; exit codes are ``errors.ExitCode``. Heavy modules (textual, torch, pynvml, amdsmi) are
imported inside the commands that need them, so ``--help`` and ``--version`` stay fast.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
from collections.abc import Sequence

import click

from envsnap._version import __version__
from envsnap.commands.common import CONTEXT_SETTINGS
from envsnap.errors import EnvsnapError, ExitCode
from envsnap.snapshot.safe_text import one_line

COMMANDS: dict[str, tuple[str, str]] = {
    "save": ("envsnap.commands.snapshot", "save_command"),
    "show": ("envsnap.commands.snapshot", "show_command"),
    "check": ("envsnap.commands.check", "check_command"),
    "diff": ("envsnap.commands.compare", "diff_command"),
    "rollback": ("envsnap.commands.rollback", "rollback_command"),
    "import": ("envsnap.commands.snapshot", "import_command"),
    "run": ("envsnap.commands.live", "run_command"),
    "watch": ("envsnap.commands.live", "watch_command"),
    "tui": ("envsnap.commands.tui", "tui_command"),
    "audit": ("envsnap.commands.audit", "audit_command"),
    "fleet": ("envsnap.commands.fleet", "fleet_command"),
    "verify": ("envsnap.commands.verify", "verify_command"),
    "report": ("envsnap.commands.report", "report_command"),
    "gpus": ("envsnap.commands.gpus", "gpus_command"),
    "export": ("envsnap.commands.export", "export_command"),
    "serve": ("envsnap.commands.serve", "serve_command"),
}
"""Each command's module, imported only when that command runs (or when help lists them all)."""


class _LazyGroup(click.Group):
    """A click group that imports a command's module on first use (click's documented lazy pattern).

    ``envsnap tui`` then loads the TUI's command module only; start-up time is what a user of a
    terminal UI notices first.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module_name, attribute = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=_LazyGroup, context_settings=CONTEXT_SETTINGS, invoke_without_command=True)
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
        tui = cli.get_command(ctx, "tui")
        assert tui is not None
        return int(ctx.invoke(tui))
    click.echo(ctx.get_help())
    return int(ExitCode.OK)


# ---------------------------------------------------------------------------- entry point


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: run the CLI and turn every outcome into an exit code."""
    if sys.stdout is None:  # started with stdout closed (`envsnap show >&-`): data would vanish
        if sys.stderr is not None:
            sys.stderr.write("envsnap: error: standard output is closed\n")
        sys.exit(int(ExitCode.BAD_INPUT))
    code = run(argv)
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError:
        code = code or int(ExitCode.BAD_INPUT)
    if code == 130:
        # Interrupted: leave now. Abandoned probe threads and child waits would otherwise be
        # joined at interpreter exit, where a second Ctrl-C prints a traceback.
        os._exit(code)
    sys.exit(code)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code; errors become one line on stderr."""
    try:
        result = cli.main(
            args=list(argv) if argv is not None else None, prog_name="envsnap", standalone_mode=False
        )
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except click.UsageError as err:
        _usage_error(err)
        return int(ExitCode.BAD_INPUT)
    except click.ClickException as err:
        click.echo(f"envsnap: error: {_safe_line(err.format_message())}", err=True)
        return int(ExitCode.BAD_INPUT)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("envsnap: interrupted", err=True)
        return 130
    except EnvsnapError as err:
        click.echo(f"envsnap: error: {_safe_line(str(err))}", err=True)
        return int(err.exit_code)
    except BrokenPipeError:
        # The reader went away (envsnap show | head): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return int(ExitCode.OK)
    except OSError as err:
        if err.errno in _OUTPUT_ERRNOS and not os.environ.get("ENVSNAP_DEBUG"):
            click.echo(f"envsnap: error: cannot write the output: {err.strerror}", err=True)
            return int(ExitCode.BAD_INPUT)
        return _internal_error(err)
    except Exception as err:
        return _internal_error(err)
    return int(result) if isinstance(result, int) else int(ExitCode.OK)


def _usage_error(err: click.UsageError) -> None:
    """One line saying what was wrong, then where help is: click's own four-line form buries the error.

    Click prints ``Usage: ...``, ``Try ...``, a blank line and ``Error: ...``; every other error of
    envsnap is one ``envsnap: error:`` line, so usage errors are too, with the hint under it.
    """
    click.echo(f"envsnap: error: {_safe_line(err.format_message())}", err=True)
    command = err.ctx.command_path if err.ctx is not None else "envsnap"
    click.echo(f"Try '{command} --help' for help.", err=True)


def _safe_line(message: str) -> str:
    """An error message as it may reach a terminal: one line, controls escaped, secrets redacted.

    Messages quote what was wrong with an input (a key, a value, a file name), and inputs are
    hostile: a ``\\n`` would forge a second line, an ESC would drive the terminal, a token quoted
    from a hand-edited file would land in a CI log.
    """
    from envsnap.snapshot.redact import redact_text

    return one_line(redact_text(message))


_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EBADF})
"""Errors of the place output goes (``> /dev/full``, a closed stdout): the user's to fix."""


def _internal_error(err: Exception) -> int:
    if os.environ.get("ENVSNAP_DEBUG"):
        raise err
    click.echo(
        f"envsnap: internal error: {type(err).__name__}: {_safe_line(str(err))} "
        "(set ENVSNAP_DEBUG=1 for a traceback)",
        err=True,
    )
    return int(ExitCode.INTERNAL)
