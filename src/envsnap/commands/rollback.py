"""``envsnap rollback``: a snapshot's packages as a requirements file, conda spec or script, or applied."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from envsnap.commands import completion
from envsnap.commands.common import (
    CONTEXT_SETTINGS,
)
from envsnap.commands.common import (
    emit_output as _emit,
)
from envsnap.commands.common import (
    progress_reporter as _progress_reporter,
)
from envsnap.commands.common import (
    stderr_console as _stderr_console,
)
from envsnap.errors import BadInput, ExitCode


@click.command("rollback", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshot", metavar="SNAPSHOT", shell_complete=completion.files)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["requirements", "conda", "script"]),
    default="requirements",
    show_default=True,
    help="requirements.txt, a conda environment.yml, or a commented POSIX shell script.",
)
@click.option("-o", "--output", metavar="PATH", help="Write the plan to PATH (atomically) instead of stdout.")
@click.option(
    "--live/--no-live",
    default=True,
    show_default=True,
    help="Probe this machine (no frameworks) so manual steps say what is installed now.",
)
@click.option("--apply", "do_apply", is_flag=True, help="Restore the packages of --python's environment now.")
@click.option(
    "--python", "python_path", metavar="PATH", help="The target interpreter (required with --apply)."
)
@click.option(
    "--dry-run", is_flag=True, help="With --apply: print the pip commands it would run; run nothing."
)
@click.option(
    "-y", "--yes", is_flag=True, help="With --apply: don't ask for confirmation (needed off a terminal)."
)
def rollback_command(
    snapshot: str,
    fmt: str,
    output: str | None,
    live: bool,
    do_apply: bool,
    python_path: str | None,
    dry_run: bool,
    yes: bool,
) -> int:
    """Get back to a snapshot's environment: a pinned plan, or (--apply) the restore itself.

    The plan pins every distribution exactly (PyTorch variants with their download.pytorch.org
    index, VCS installs at their commit) and lists what pip cannot restore as manual steps:
    the NVIDIA/AMD driver, CUDA/ROCm toolkits, the interpreter, editable installs. With --apply,
    pip (run by --python) installs the pins with --no-deps, then removes what the snapshot
    lacks (never pip/setuptools/wheel, nor envsnap and its requirements in envsnap's own
    environment); then the packages are read again and compared: exit 0 when they match, 1
    when not. It asks first on a terminal (no: exit 1, nothing changed); elsewhere it needs --yes
    (--dry-run prints the pip commands instead). A snapshot with an unsafe
    name, version or URL, or without a package list, is refused (exit 2) before anything runs.

    \b
    Examples:
      envsnap rollback known-good.yaml > requirements.txt
      envsnap rollback known-good.yaml --format conda -o environment.yml
      envsnap rollback known-good.yaml --format script --no-live > restore.sh
      envsnap rollback known-good.yaml --apply --python .venv/bin/python --dry-run
      envsnap rollback known-good.yaml --apply --python .venv/bin/python --yes
    """
    from envsnap import api

    _check_rollback_usage(do_apply, output, dry_run, yes)
    data = api.load(snapshot)
    label = Path(snapshot).name
    if do_apply:
        return _rollback_apply(data, label, python_path, dry_run=dry_run, yes=yes)
    import dataclasses

    import msgspec

    from envsnap.render.rollback import render_plan
    from envsnap.rollback.plan import plan, system_steps
    from envsnap.snapshot import files

    restore = plan(data, label=label)  # refuses an unsafe snapshot before probing anything
    if snapshot != "-":
        restore = dataclasses.replace(restore, snapshot_path=snapshot)
    if live:
        now = api.collect(python=python_path, frameworks=False, findings=False, progress=_progress_reporter())
        if python_path is None:  # envsnap's own interpreter says nothing about the target's Python
            now = msgspec.structs.replace(now, python=None)
        restore = dataclasses.replace(restore, system=system_steps(data, now, label))
    if restore.packages_unknown:
        click.echo(
            f"envsnap: warning: {label}: the package layer is unknown ({restore.packages_unknown}); "
            "the plan pins no packages",
            err=True,
        )
    text = render_plan(restore, fmt)
    if output:
        files.write_atomic(Path(output), text)
        click.echo(output)
    else:
        sys.stdout.write(text)
    return int(ExitCode.OK)


def _check_rollback_usage(do_apply: bool, output: str | None, dry_run: bool, yes: bool) -> None:
    """Options that belong to one mode only are usage errors in the other (exit 2)."""
    if do_apply:
        source = click.get_current_context().get_parameter_source("fmt")
        if output is not None or source != click.core.ParameterSource.DEFAULT:
            raise click.UsageError(
                "--apply restores the environment itself: -o/--output and --format don't apply"
            )
    elif dry_run or yes:
        raise click.UsageError(f"{'--dry-run' if dry_run else '--yes'} only goes with --apply")


def _rollback_apply(data: Any, label: str, python_path: str | None, *, dry_run: bool, yes: bool) -> int:
    from rich.text import Text

    from envsnap.render.diff import diff_report
    from envsnap.render.rollback import manual_text, pip_commands
    from envsnap.rollback.apply import execute, prepare
    from envsnap.snapshot.safe_text import one_line, printable

    if not python_path:
        raise click.UsageError("--apply needs --python PATH: the interpreter whose environment to restore")
    err = _stderr_console()

    def show(line: str) -> None:  # pip's lines verbatim: never re-wrapped to the terminal width
        err.print(Text(printable(line, limit=None), style="dim"), soft_wrap=True)

    prepared = prepare(data, python_path, label=label)  # refuses a hostile or package-less snapshot
    if prepared.protected:
        names = ", ".join(prepared.protected)
        show(f"envsnap: keeping {names}: envsnap runs from this environment and needs them")
    if dry_run:
        sys.stdout.write(pip_commands(prepared))
        if not prepared.commands():
            click.echo(f"envsnap: nothing to do: the packages of {python_path} match {label}", err=True)
        return int(ExitCode.OK)
    if (prepared.install or prepared.remove) and not yes:
        counts = f"install {len(prepared.install)}, remove {len(prepared.remove)} distribution(s)"
        question = f"restore {one_line(label)} into {python_path}: {counts}"
        if not sys.stdin.isatty():
            raise BadInput(f"{question}: re-run with --yes to confirm (--dry-run prints the pip commands)")
        # The question lists what changes, not just how much: a yes must be an informed one.
        if prepared.install:
            show(f"envsnap: would install: {', '.join(pin.requirement for pin in prepared.install)}")
        if prepared.remove:
            show(f"envsnap: would remove: {', '.join(prepared.remove)}")
        if prepared.reinstall:
            reinstall = ", ".join(pin.requirement for pin in prepared.reinstall)
            show(f"envsnap: would reinstall (they share import names with a removed one): {reinstall}")
        if not click.confirm(f"{question}?", default=False, err=True):
            click.echo("envsnap: not confirmed; nothing was changed", err=True)
            return int(ExitCode.FINDINGS)
    result = execute(prepared, data, on_line=show)
    for item in result.manual:
        err.print(Text(f"not restored automatically: {manual_text(item)}", style="yellow"))
    if result.kept:
        kept = ", ".join(result.kept)
        err.print(Text(f"kept (installer tooling, not in the snapshot): {kept}", style="dim"))
    if result.pip_failed:
        err.print(Text("pip reported an error (see its output above)", style="bold red"))
    if result.remaining:
        _emit(diff_report(result.remaining, [label, python_path], [None, None], "text"))
        return int(ExitCode.FINDINGS)
    done = f"restored: the packages of {python_path} match {label}"
    click.echo(f"{done} (removed {len(result.removed)}, installed {len(result.installed)})")
    return int(ExitCode.FINDINGS if result.pip_failed else ExitCode.OK)
