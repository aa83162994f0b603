"""``gpus``: a one-shot (or ``--watch``) view of every GPU and who uses it, as gpustat shows it."""

from __future__ import annotations

import os
import shutil
import sys

import click

from envsnap.commands.common import CONTEXT_SETTINGS


def colour_wanted() -> bool:
    """ANSI colours only on a terminal, and never when ``NO_COLOR`` is set (https://no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


@click.command("gpus", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--watch",
    "interval",
    is_flag=False,
    flag_value=1.0,
    default=None,
    type=click.FloatRange(min=0.1),
    metavar="[SECONDS]",
    help="Redraw every SECONDS (default 1) until Ctrl-C; piped: one frame after the other.",
)
@click.option("--json", "as_json", is_flag=True, help="JSON on stdout; with --watch one object per line.")
@click.option("--no-processes", is_flag=True, help="Leave out the processes using each GPU.")
def gpus_command(interval: float | None, as_json: bool, no_processes: bool) -> int:
    """Every GPU now: temperature, utilization, memory, power, and the processes using it.

    NVIDIA through NVML, AMD through amdsmi (or sysfs). Each process shows its PID, user,
    memory and command line (secrets in it redacted). Colours only on a terminal and without
    NO_COLOR. Exit 0, also on a host without GPUs (it says so) and when Ctrl-C ends --watch.

    \b
    Examples:
      envsnap gpus                      one look, like gpustat
      envsnap gpus --watch              redraw every second until Ctrl-C
      envsnap gpus --watch 5 --json     one JSON object every 5 s (JSON Lines)
      envsnap gpus --json | jq '.devices[].memory_used_bytes'
    """
    from envsnap.live.gpu_view import open_reader

    reader = open_reader()
    processes = not no_processes
    try:
        if not reader.found and as_json:  # the text frame says so itself
            click.echo("envsnap: no GPU found (no NVIDIA driver through NVML, no AMD GPU)", err=True)
        if interval is not None:
            from envsnap.commands.gpus_terminal import watch

            return watch(
                reader, interval, sys.stdout, processes=processes, as_json=as_json, colour=colour_wanted()
            )
        from envsnap.render.gpus import frame_text, gpus_json, gpus_lines

        view = reader.read(processes=processes)
        if as_json:
            click.echo(gpus_json(view, processes=processes))
            return 0
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        sys.stdout.write(
            frame_text(gpus_lines(view, colour=colour_wanted(), width=width, processes=processes))
        )
        return 0
    finally:
        reader.close()
