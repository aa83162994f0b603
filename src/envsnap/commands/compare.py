"""``envsnap diff``: compare two snapshots (or any pasted reports), or many side by side."""

from __future__ import annotations

from pathlib import Path

import click

from envsnap.commands import completion
from envsnap.commands.common import (
    CONTEXT_SETTINGS,
    output_options,
)
from envsnap.commands.common import (
    emit_output as _emit,
)
from envsnap.commands.common import (
    warn_edited as _warn_edited,
)
from envsnap.errors import ExitCode


@click.command("diff", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshots", nargs=-1, metavar="A B [C ...]", shell_complete=completion.files)
@output_options(markdown="a table to paste into an issue or a pull request")
@click.option(
    "--only",
    multiple=True,
    metavar="LAYER",
    shell_complete=completion.layers,
    help="Only this layer (repeatable): host, driver, runtime, framework, devices, packages, "
    "extensions, environment, telemetry (--only telemetry implies --include-telemetry).",
)
@click.option(
    "--include-telemetry", is_flag=True, help="Also compare live metrics (memory used, temperatures)."
)
def diff_command(snapshots: tuple[str, ...], fmt: str, only: tuple[str, ...], include_telemetry: bool) -> int:
    """What changed between two snapshots; with three or more, which hosts differ from the rest.

    Devices are matched by model and position (never by UUID), packages by normalized name; host
    identity, capture metadata and findings are ignored. Each change has an impact: breaking,
    notable or minor. A section one file lacks (an imported report) is not compared, and the
    summary says so. With 3+ files: every field that differs anywhere, its majority value and
    the hosts that deviate. A text table shows its 2,000 most severe rows and counts the rest;
    --json and --format markdown list every change. Exit 0 when identical, 1 when anything
    differs, 2 on bad input.

    \b
    Examples:
      envsnap diff known-good.yaml today.yaml
      envsnap diff before.yaml after.yaml --only packages --only framework
      envsnap diff a.yaml b.yaml --format markdown >> pr-description.md
      envsnap diff snapshots/*.yaml --json | jq '.fields[] | select(.impact == "breaking")'
      envsnap diff fleet/                 a fleet folder: its groups (envsnap fleet show)
    """
    from envsnap import api
    from envsnap.api import load_checked
    from envsnap.compare.diff import not_compared
    from envsnap.compare.impact import LAYERS
    from envsnap.fleet.view import fleet, host_labels
    from envsnap.render.diff import diff_report, fleet_report

    if len(snapshots) == 1 and Path(snapshots[0]).is_dir():  # a fleet folder: its groups
        from envsnap.commands.fleet import show_folder

        return show_folder(Path(snapshots[0]), fmt)
    if len(snapshots) < 2:
        raise click.UsageError("diff needs at least two snapshot files (envsnap diff A B [C ...])")
    unknown = sorted(set(only) - set(LAYERS))
    if unknown:
        raise click.UsageError(f"--only: unknown layer {', '.join(unknown)} (layers: {', '.join(LAYERS)})")
    loaded, edited = load_checked(snapshots)  # redacted, fingerprints recomputed
    from envsnap.commands.reports import announce

    for snapshot, source in zip(loaded, snapshots, strict=True):
        announce(snapshot, source)
    _warn_edited(edited)
    labels = host_labels(loaded, snapshots)
    layers = only or None
    include_telemetry = include_telemetry or "telemetry" in only  # asking for the layer asks for the data
    if len(loaded) == 2:
        changes = api.diff(loaded[0], loaded[1], include_telemetry=include_telemetry, only=layers)
        skipped = not_compared(loaded[0], loaded[1], include_telemetry=include_telemetry, only=layers)
        fingerprints = [s.fingerprint for s in loaded]
        _emit(diff_report(changes, labels, fingerprints, fmt, skipped))
        return int(ExitCode.FINDINGS if changes else ExitCode.OK)
    report = fleet(loaded, labels, include_telemetry=include_telemetry, only=layers)
    _emit(fleet_report(report, fmt))
    return int(ExitCode.FINDINGS if report.fields else ExitCode.OK)
