"""``tui``: the interactive inspector, live or on a saved snapshot or run report."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from envsnap.commands import completion
from envsnap.commands.common import (
    CONTEXT_SETTINGS,
)
from envsnap.errors import BadInput, ExitCode


@click.command("tui", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshot", required=False, metavar="[SNAPSHOT]", shell_complete=completion.files)
@click.option(
    "--interval",
    type=click.FloatRange(min=0.1),
    default=1.0,
    show_default=True,
    help="Seconds between live telemetry samples (at least 0.1).",
)
@click.option(
    "--dir",
    "snapshot_dir",
    metavar="DIR",
    default="snapshots",
    show_default=True,
    help="Folder of saved snapshots: listed on the Snapshots tab, written by the s key.",
)
@click.option(
    "--python", "python_path", metavar="PATH", help="Live mode: probe this interpreter's environment."
)
@click.option("--no-frameworks", is_flag=True, help="Live mode: don't import ML frameworks (faster).")
def tui_command(
    snapshot: str | None = None,
    interval: float = 1.0,
    snapshot_dir: str = "snapshots",
    python_path: str | None = None,
    no_frameworks: bool = False,
) -> int:
    """Open the interactive inspector: live on this machine, or read-only on a saved file.

    Tabs: Overview (layers and their health), Devices (live GPU telemetry), Packages, Checks
    (findings and fixes), Snapshots (saved snapshots; s saves, d diffs). Press ? for every key.
    SNAPSHOT may also be the report of `envsnap run` or `envsnap watch`: it opens in the Run view
    (verdict, evidence, thresholds, CPU and GPU timeline, suspicious windows, processes).
    SNAPSHOT may also be a fleet folder: the Fleet tab (nodes, groups, the odd node's diff).

    \b
    Examples:
      envsnap tui                          live, sampling GPUs every second
      envsnap tui --interval 0.5           sample twice a second
      envsnap tui snapshots/gpu01.yaml     a saved snapshot, read-only
      envsnap tui runs/train.yaml          the report of `envsnap run --report runs/train.yaml`
      envsnap tui fleet/                   a fleet folder (envsnap fleet collect): the Fleet tab
    """
    if snapshot is not None and snapshot != "-":  # stdin is left for the app's own reader
        from envsnap.documents import load_document

        # Bad input fails here, one line and exit 2 like every command, not inside a full-screen UI.
        # The app reads the file again in its worker (and on `r`), so a file edited later still shows.
        load_document(Path(snapshot))
    if not sys.stdout.isatty():
        # Textual would write escape codes into the pipe or file and wait for keys forever.
        raise BadInput(
            "envsnap tui needs a terminal: standard output is not one "
            "(for text, use `envsnap show`, `envsnap check` or `envsnap diff`)"
        )
    from envsnap.tui.app import EnvsnapApp
    from envsnap.tui.defaults import live_collector

    app = EnvsnapApp(
        snapshot_path=Path(snapshot) if snapshot is not None else None,
        interval_s=interval,
        snapshot_dir=Path(snapshot_dir),
        collector=live_collector(python=python_path, frameworks=not no_frameworks),
    )
    app.run()
    return int(app.return_code or ExitCode.OK)
