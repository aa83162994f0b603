"""``export prometheus``: the node's stack, findings and drift as Prometheus metrics (textfile collector)."""

from __future__ import annotations

from pathlib import Path

import click

from envsnap.commands import completion
from envsnap.commands.common import CONTEXT_SETTINGS, refuse_live_options, warn_edited, warn_failed_probes
from envsnap.errors import BadInput, ExitCode


@click.group("export", context_settings=CONTEXT_SETTINGS)
def export_command() -> None:
    """Write what envsnap knows about this node in another system's format.

    \b
    Examples:
      envsnap export prometheus --against known-good.yaml -o /var/lib/prometheus/node-exporter/envsnap.prom
    """


def watch_folder(path: str | None) -> Path | None:
    """The ``--watch-dir`` folder, refused when it is not one (a typo would silently export no watches)."""
    if path is None:
        return None
    folder = Path(path)
    if not folder.is_dir():
        raise BadInput(
            f"--watch-dir {path}: no such folder (create it; `envsnap watch --export` writes there)"
        )
    return folder


@export_command.command("prometheus", context_settings=CONTEXT_SETTINGS)
@click.argument("snapshot", required=False, metavar="[SNAPSHOT]", shell_complete=completion.files)
@click.option(
    "--against",
    metavar="KNOWN_GOOD",
    shell_complete=completion.files,
    help="Also export drift: changes from this known-good snapshot, by impact and layer.",
)
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    default="-",
    show_default=True,
    shell_complete=completion.files,
    help="Write here, replacing the file atomically (node_exporter never reads half of it); - is stdout.",
)
@click.option(
    "--watch-dir",
    metavar="DIR",
    help="Also export the verdicts of the processes `envsnap watch --export DIR` is watching.",
)
@click.option(
    "--python", "python_path", metavar="PATH", help="Live mode: probe this interpreter's environment."
)
@click.option(
    "--no-frameworks", is_flag=True, help="Live mode: don't import ML frameworks (faster, fewer checks)."
)
def prometheus_command(
    snapshot: str | None,
    against: str | None,
    output: str,
    watch_dir: str | None,
    python_path: str | None,
    no_frameworks: bool,
) -> int:
    """The node's stack, findings and drift in the Prometheus text format.

    Probes this machine (or reads SNAPSHOT) and writes envsnap_stack_info, envsnap_gpu_info,
    envsnap_findings, envsnap_probe_status, envsnap_last_probe_timestamp_seconds and, with
    --against, envsnap_drift_changes{impact,layer}. With -o FILE the file is replaced atomically,
    the way node_exporter's textfile collector needs it (run it from a timer; docs/usage/metrics.md).
    Exit 0 when written, 2 when an input can't be read or the file can't be written.

    \b
    Examples:
      envsnap export prometheus
      envsnap export prometheus --against known-good.yaml \\
          -o /var/lib/prometheus/node-exporter/envsnap.prom
      envsnap export prometheus snapshots/gpu01.yaml --against golden.yaml -o -
    """
    from envsnap import api
    from envsnap.exporter.source import (
        KnownGood,
        file_capture,
        folder_watch_families,
        live_capture,
        node_families,
    )
    from envsnap.render.prometheus import exposition
    from envsnap.snapshot import files

    if snapshot is not None:
        refuse_live_options(snapshot, python=python_path, no_frameworks=no_frameworks)
    elif python_path is not None:
        api.check_interpreter(python_path)
    folder = watch_folder(watch_dir)
    known = KnownGood(against) if against is not None else None  # unreadable: fail before probing
    if known is not None:
        warn_edited([known.path] if known.edited else [])
    if output != "-":
        files.check_writable(Path(output))  # fail now, not after the probes
    capture = file_capture(snapshot) if snapshot is not None else live_capture(python_path, not no_frameworks)
    data = capture()
    if snapshot is None:
        warn_failed_probes(data)
    text = exposition(
        [*node_families(data, known.snapshot if known else None), *folder_watch_families(folder)]
    )
    if output == "-":
        click.echo(text, nl=False)
    else:
        files.write_atomic(Path(output), text)
    return int(ExitCode.OK)
