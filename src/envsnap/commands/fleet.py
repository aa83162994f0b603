"""``fleet collect`` and ``fleet show``: snapshots of many nodes through Slurm or SSH, and the odd one out."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import click

from envsnap.commands.common import CONTEXT_SETTINGS, emit_output, output_options, stderr_console, warn_edited
from envsnap.errors import BadInput, ExitCode


@click.group("fleet", context_settings=CONTEXT_SETTINGS)
def fleet_command() -> None:
    """Collect snapshots from many nodes (Slurm or SSH) and find the node that differs.

    \b
    Examples:
      envsnap fleet collect --ssh 'gpu[01-64]' -o fleet/
      envsnap fleet collect --slurm='-N 8 -p gpu' --python /shared/envsnap/bin/python -o fleet/
      envsnap fleet show fleet/
    """


@fleet_command.command("collect", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--slurm",
    "srun_args",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[SRUN_ARGS]",
    help="Run through srun, one task per node. SRUN_ARGS (quoted, after '=') choose the nodes; "
    "default: every node of the allocation (SLURM_JOB_NODELIST), else every responding node.",
)
@click.option("--ssh", "nodeset", metavar="NODESET", help="Run over SSH on a node set: 'gpu[01-64],login1'.")
@click.option(
    "--hosts-file",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Run over SSH on the nodes listed in FILE (one name or node set per line, # comments).",
)
@click.option(
    "-o",
    "--output",
    "folder",
    default="fleet",
    show_default=True,
    metavar="DIR",
    help="Folder for the results.",
)
@click.option(
    "--python",
    "python_path",
    metavar="PATH",
    help="The nodes' interpreter that has envsnap (runs PATH -m envsnap), e.g. a venv on a shared "
    "file system. Default: the envsnap command on the nodes' PATH.",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=1),
    default=180.0,
    show_default=True,
    metavar="S",
    help="Seconds per node before it counts as timed out.",
)
@click.option(
    "--fanout",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    metavar="N",
    help="SSH: nodes at once.",
)
@click.option(
    "--ssh-config",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="SSH: use this ssh_config instead of ~/.ssh/config (ssh -F).",
)
@click.option("--anonymize", is_flag=True, help="Mask hostnames, usernames in paths, serials and GPU UUIDs.")
@click.option("--no-frameworks", is_flag=True, help="Don't import ML frameworks on the nodes (faster).")
def collect_command(
    srun_args: str | None,
    nodeset: str | None,
    hosts_file: Path | None,
    folder: str,
    python_path: str | None,
    timeout_s: float,
    fanout: int,
    ssh_config: Path | None,
    anonymize: bool,
    no_frameworks: bool,
) -> int:
    """Run `envsnap save -o -` on every node; write DIR/<node>.yaml and the index DIR/fleet.yaml.

    Each node ends ok, unreachable, timed-out, envsnap-missing or probe-failed; one bad node
    never loses the others. envsnap must be installed on the nodes: the usual setup is one venv
    on a shared file system, given with --python. SSH runs the system ssh through ClusterShell
    with keys or an agent only (BatchMode): the user's ~/.ssh/config applies. Prints the index
    path on stdout; exit 0 when every node was collected, 1 when some were not, 2 on bad usage.

    \b
    Examples:
      envsnap fleet collect --ssh 'node[1-4]' -o fleet/
      envsnap fleet collect --hosts-file hosts.txt --fanout 16 --timeout 60
      envsnap fleet collect --slurm -o fleet/                  inside salloc/sbatch: every node
      envsnap fleet collect --slurm='-N 4 -p gpu' --python /shared/venv/bin/python
    """
    from envsnap.fleet.collect import RemoteCommand, collect
    from envsnap.fleet.transport import Transport
    from envsnap.snapshot.finalize import utc_now

    chosen = [
        name
        for name, value in (("--slurm", srun_args), ("--ssh", nodeset), ("--hosts-file", hosts_file))
        if value is not None
    ]
    if len(chosen) != 1:
        raise BadInput("fleet collect needs exactly one of --slurm, --ssh NODESET or --hosts-file FILE")
    transport: Transport
    total: int | None
    if srun_args is not None:
        from envsnap.fleet.slurm import SlurmTransport

        try:
            args = shlex.split(srun_args)
        except ValueError as err:
            raise BadInput(f"--slurm {srun_args!r}: {err}") from err
        transport = SlurmTransport(args, timeout_s=timeout_s)
        total = None
    else:
        from envsnap.fleet.nodes import expand, read_hosts_file
        from envsnap.fleet.ssh import SshTransport

        names = expand(nodeset) if nodeset is not None else read_hosts_file(hosts_file)  # type: ignore[arg-type]
        if ssh_config is not None and not ssh_config.is_file():
            raise BadInput(f"--ssh-config {ssh_config}: no such file")
        transport = SshTransport(
            names, timeout_s=timeout_s, fanout=fanout, ssh_config=str(ssh_config) if ssh_config else None
        )
        total = len(names)
    progress = _progress(total)
    try:
        index, _ = collect(
            transport,
            Path(folder),
            RemoteCommand(python=python_path, anonymize=anonymize, frameworks=not no_frameworks),
            collected_at=utc_now(),
            progress=progress,
        )
    finally:
        if progress is not None:
            progress.stop()
    click.echo(str(Path(folder) / "fleet.yaml"))
    failed = [node for node in index.nodes if node.status != "ok"]
    _summary(index, folder, failed)
    return int(ExitCode.FINDINGS if failed else ExitCode.OK)


def _progress(total: int | None) -> Any:
    if not sys.stderr.isatty():
        return None
    from envsnap.render.fleet import FleetProgress

    return FleetProgress(stderr_console(), total)


def _summary(index: Any, folder: str, failed: list[Any]) -> None:
    from collections import Counter

    from envsnap.snapshot.safe_text import one_line

    counts = Counter(node.status for node in failed)
    detail = f" ({', '.join(f'{n} {status}' for status, n in counts.items())})" if counts else ""
    ok = len(index.nodes) - len(failed)
    click.echo(
        f"collected {ok} of {len(index.nodes)} nodes{detail}; next: envsnap fleet show {folder}", err=True
    )
    for node in failed:
        click.echo(f"  {one_line(node.name)}: {node.status}: {one_line(node.reason or '')}", err=True)


@fleet_command.command("show", context_settings=CONTEXT_SETTINGS)
@click.argument("folder", metavar="DIR")
@output_options(markdown="the groups and their differences, to paste into a ticket")
def show_command(folder: str, fmt: str) -> int:
    """Group the nodes of a fleet folder by fingerprint and show how each group differs from the majority.

    The largest group is the reference (as clush --diff picks it); every other group gets the
    layer-aware differences (impact: breaking, notable, minor) and the findings only it has,
    worst first, so the first line names the odd node and its most important difference. A
    folder of snapshots without fleet.yaml works too. Exit 0 when every node was collected and
    all share one fingerprint, 1 otherwise, 2 when the folder can't be read.

    \b
    Examples:
      envsnap fleet show fleet/
      envsnap fleet show fleet/ --format markdown >> incident.md
      envsnap fleet show fleet/ --json | jq '.groups[1:][] | {nodes, impact}'
    """
    return show_folder(Path(folder), fmt)


def show_folder(folder: Path, fmt: str) -> int:
    """``fleet show`` (and ``diff DIR``): print the groups, return the exit code."""
    from envsnap.fleet.group import group, load_fleet
    from envsnap.render.fleet import fleet_show_report

    loaded = load_fleet(folder)
    warn_edited(list(loaded.edited))
    groups = group(loaded.nodes)
    emit_output(fleet_show_report(loaded, groups, fmt))
    return int(ExitCode.OK if groups.uniform else ExitCode.FINDINGS)


def check_folder(folder: Path, against: str, threshold: str, as_json: bool) -> int:
    """``check DIR --against GOLDEN``: every node against the golden snapshot; exit 1 if any differs."""
    from envsnap.api import load_checked
    from envsnap.compare.impact import IMPACT_RANK
    from envsnap.fleet.group import check_against, load_fleet
    from envsnap.render.fleet import node_checks_report

    (golden,), edited = load_checked([against])
    loaded = load_fleet(folder)
    warn_edited([*edited, *loaded.edited])
    checks = check_against(loaded.nodes, golden)
    rank = IMPACT_RANK[threshold]
    emit_output(node_checks_report(checks, Path(against).name, rank, "json" if as_json else "text"))
    failing = any(c.changes is None or any(IMPACT_RANK[x.impact] <= rank for x in c.changes) for c in checks)
    return int(ExitCode.FINDINGS if failing else ExitCode.OK)
