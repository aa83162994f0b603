"""``run`` and ``watch``: catch a workload that silently runs on the CPU."""

from __future__ import annotations

from typing import Any

import click

from envsnap.commands.common import (
    CONTEXT_SETTINGS,
)


def _fallback_options(command: Any) -> Any:
    """Options shared by ``run`` and ``watch``: sampling, verdict thresholds, report."""
    options = [
        click.option(
            "--interval", type=click.FloatRange(min=0.05), default=1.0, show_default=True, metavar="S",
            help="Seconds between samples.",
        ),
        click.option(
            "--expect", type=click.Choice(["cuda", "rocm", "xpu", "mps"]),
            help="Only count devices of this backend (cuda = NVIDIA, rocm = AMD, xpu = Intel).",
        ),
        click.option(
            "--cpu-busy", type=click.FloatRange(min=1.0), default=90.0, show_default=True, metavar="PERCENT",
            help="Tree CPU counted as CPU-bound (100 = one core).",
        ),
        click.option(
            "--sustain", type=click.FloatRange(min=0.0), default=10.0, show_default=True, metavar="S",
            help="How long a suspicious state must last before it is flagged.",
        ),
        click.option(
            "--gpu-idle", type=click.FloatRange(min=0.0, max=100.0), default=5.0, show_default=True,
            metavar="PERCENT", help="GPU utilization counted as idle.",
        ),
        click.option(
            "--report", metavar="PATH",
            help="Where to write the run report (YAML; JSON if PATH ends in .json), replacing PATH. "
            "Default: envsnap-run|watch-<UTC time>-<PID>.yaml here, never overwriting a file.",
        ),
        click.option("--no-report", is_flag=True, help="No report file (the summary still goes to stderr)."),
        click.option("--no-status", is_flag=True, help="No live status in the terminal's title."),
    ]  # fmt: skip
    for option in reversed(options):
        command = option(command)
    return command


def _thresholds(interval: float, cpu_busy: float, sustain: float, gpu_idle: float) -> Any:
    from envsnap.live.run_report import Thresholds

    return Thresholds(
        interval_s=interval, cpu_busy_percent=cpu_busy, sustain_s=sustain, gpu_idle_percent=gpu_idle
    )


# Options end at the command's first word (allow_interspersed_args=False), so the command's own
# options pass through untouched; an unknown option *before* it is a typo of ours (`--intervl`),
# refused as a usage error rather than run as the command.
@click.command("run", context_settings={**CONTEXT_SETTINGS, "allow_interspersed_args": False})
@_fallback_options
@click.option(
    "--fail-on-fallback",
    is_flag=True,
    help="CI gate: exit 69 when the command exited 0 but the verdict is cpu-fallback-suspected or "
    "gpu-idle-while-busy (or no-accelerator with --expect).",
)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run_command(
    command: tuple[str, ...],
    interval: float,
    expect: str | None,
    cpu_busy: float,
    sustain: float,
    gpu_idle: float,
    report: str | None,
    no_report: bool,
    no_status: bool,
    fail_on_fallback: bool,
) -> int:
    """Run a command and catch it silently running on the CPU instead of the GPU.

    Samples the command's whole process tree (CPU, memory, threads) and every GPU (utilization,
    memory, which PIDs hold memory) until it ends. Verdict: gpu-active, cpu-fallback-suspected,
    gpu-idle-while-busy, no-accelerator or inconclusive, with evidence, in the report file and on
    stderr; secrets in the command line are redacted. stdout is the command's, so there is no
    --json: the report file (--report run.json for JSON) is the machine-readable result. The
    live status goes to the terminal's title, never between the command's own lines.

    Exit status: the command's (128+n after signal n; signals are passed on to it); 127 / 126
    when it can't be found / run; 2 for bad options (nothing ran); 69 with --fail-on-fallback.
    A report that can't be written at the end is an error on stderr and leaves the command's
    status unchanged.

    \b
    Examples:
      envsnap run -- python train.py --epochs 3
      envsnap run --expect cuda --report runs/train.yaml -- torchrun --nproc-per-node 8 train.py
      envsnap run --expect cuda --fail-on-fallback -- pytest tests/gpu
      envsnap run --interval 0.5 --sustain 5 -- python -c "sum(i*i for i in range(10**8))"
    """
    from envsnap.commands.live_terminal import run_cli

    return run_cli(
        command,
        thresholds=_thresholds(interval, cpu_busy, sustain, gpu_idle),
        expect=expect,  # type: ignore[arg-type]  # click.Choice checked it
        report=report,
        no_report=no_report,
        status=not no_status,
        fail_on_fallback=fail_on_fallback,
    )


@click.command("watch", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--pid", type=click.IntRange(min=1), required=True, help="The process to watch (with its children)."
)
@_fallback_options
@click.option("--json", "as_json", is_flag=True, help="Also print the report as JSON on stdout.")
@click.option(
    "--export", metavar="DIR",
    help="Keep the verdict current in DIR/watch-<PID>.json for `envsnap serve --metrics --watch-dir DIR`.",
)  # fmt: skip
def watch_command(
    pid: int,
    interval: float,
    expect: str | None,
    cpu_busy: float,
    sustain: float,
    gpu_idle: float,
    report: str | None,
    no_report: bool,
    no_status: bool,
    as_json: bool,
    export: str | None = None,
) -> int:
    """Watch a running process for silent CPU fallback, until it exits or Ctrl-C.

    Same sampling, verdict and report as `envsnap run` (the report says `report: envsnap-watch`).
    Exit status: 0 when the process ended, 130 (or 143) when Ctrl-C (or SIGTERM) stopped the
    watch first, 2 when the report could not be written.

    \b
    Examples:
      envsnap watch --pid 4242
      envsnap watch --pid "$(pgrep -f train.py | head -1)" --report watch.yaml --json | jq .verdict
      envsnap watch --pid 4242 --export /run/envsnap/watch     the verdict as a Prometheus metric
    """
    from envsnap.commands.live_terminal import watch_cli

    return watch_cli(
        pid,
        thresholds=_thresholds(interval, cpu_busy, sustain, gpu_idle),
        expect=expect,  # type: ignore[arg-type]  # click.Choice checked it
        report=report,
        no_report=no_report,
        status=not no_status,
        as_json=as_json,
        export=export,
    )
