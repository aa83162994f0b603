"""The terminal side of ``envsnap run`` and ``envsnap watch``: report file, live status, summary, exit status.

cli.py parses the options and calls ``run_cli``/``watch_cli``; this module wires them to
live/fallback.py and decides what reaches the terminal: the live status (the terminal's title, see
live/status_line.py), the verdict summary (stderr, always), the report file (YAML, or JSON when the
name ends in ``.json``; written atomically, secrets scrubbed). stdout belongs to the workload under
``run``, which is why ``run`` has no ``--json``: the report file is its machine-readable output.
Under ``watch`` stdout carries the report as JSON on ``--json``.

Where the report goes: ``--report PATH`` (replaced if it exists: the user named it), else
``envsnap-<mode>-<UTC time, ms>-<PID>.yaml`` in the current folder, never overwriting an existing
file (``srun envsnap run`` starts many ranks in one second), or nowhere with ``--no-report``. The
path is tried (a temporary file is created and removed there) before the workload starts, so a
typo can't cost a finished training run its report.

Exit status of ``run``: the workload's, always, with three exceptions: 127 / 126 when the command
can't be found / run (as env(1) and timeout(1), so it can't be taken for the workload's own exit
2); 2 when the options are wrong (nothing ran); and ``FALLBACK_EXIT`` (69) with
``--fail-on-fallback`` when the workload exited 0 but ran on the CPU. A report that still can't
be written at the end is reported on stderr and does *not* change the status: a wrapper must not
turn a finished job into a failed one (or hide a failure) because of its own side file.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from envsnap.errors import BadInput, ExitCode
from envsnap.live.output_path import check_writable, default_report_path
from envsnap.live.run_report import Expect, RunReport, Thresholds, Verdict, save_run_report
from envsnap.live.status_line import StatusTitle

FALLBACK_EXIT = 69
"""``run --fail-on-fallback``: the workload exited 0 but its verdict says it ran on the CPU.

EX_UNAVAILABLE of sysexits.h ("a service is unavailable"): the accelerator was. Rare as a
workload's own status, and outside envsnap's 0-3 and the shell's 126/127/128+n."""

FALLBACK_VERDICTS: frozenset[Verdict] = frozenset({"cpu-fallback-suspected", "gpu-idle-while-busy"})
"""Verdicts that fail ``--fail-on-fallback``; ``no-accelerator`` too when ``--expect`` names a backend."""

_VERDICT_COLOR = {
    "gpu-active": "green",
    "cpu-fallback-suspected": "red",
    "gpu-idle-while-busy": "yellow",
    "no-accelerator": "cyan",
    "inconclusive": "white",
}


def _status(enabled: bool, stream: TextIO) -> StatusTitle | None:
    if not enabled or not stream.isatty() or os.environ.get("TERM") == "dumb":
        return None
    return StatusTitle(stream)


def summary_text(report: RunReport, path: Path | None, color: bool) -> str:
    """The verdict, its sentence and its evidence, for stderr."""
    import click

    verdict: str = report.verdict
    if color:
        verdict = click.style(verdict, fg=_VERDICT_COLOR[report.verdict], bold=True)
    lines = [f"envsnap {report.mode}: {verdict}", f"  {report.summary}"]
    lines += [f"  · {line}" for line in report.evidence]
    if report.exit_code is not None:
        ended = f" ({report.signal})" if report.signal else ""
        lines.append(f"  workload exit status {report.exit_code}{ended}")
    elif report.interrupted:
        lines.append(
            f"  stopped watching ({report.signal or 'interrupted'}); PID {report.pid} was still running"
        )
    if path is not None:
        lines.append(f"  report: {path}")
    return "\n".join(lines)


def _finish(report: RunReport, path: Path | None, overwrite: bool, status: StatusTitle | None) -> bool:
    """Write the report and print the summary; False when the report was wanted but not written."""
    import click

    if status is not None:
        status.clear()
    written: Path | None = None
    failed = False
    if path is not None:
        try:
            written = save_run_report(report, path, overwrite=overwrite)
        except BadInput as err:  # the workload's outcome still counts; say why the file is missing
            click.echo(f"envsnap: error: report not written: {err}", err=True)
            failed = True
    color = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
    click.echo(summary_text(report, written, color), err=True)
    return not failed


def _report_path(mode: str, report: str | None, no_report: bool) -> tuple[Path | None, bool]:
    """The report path and whether it may replace an existing file (only a path the user gave)."""
    if no_report:
        return None, False
    path = Path(report) if report else default_report_path(f"envsnap-{mode}")
    check_writable(path)
    return path, report is not None


def fails_on_fallback(report: RunReport, expect: Expect | None) -> bool:
    """Whether ``--fail-on-fallback`` turns this run's status into ``FALLBACK_EXIT``."""
    if report.exit_code != 0:
        return False  # the workload's own failure is the news; never mask it
    if report.verdict in FALLBACK_VERDICTS:
        return True
    return report.verdict == "no-accelerator" and expect is not None


def run_cli(
    command: Sequence[str],
    *,
    thresholds: Thresholds,
    expect: Expect | None,
    report: str | None,
    no_report: bool,
    status: bool,
    fail_on_fallback: bool = False,
) -> int:
    """``envsnap run``: run the command, write the report, print the summary; the exit status above."""
    import click

    from envsnap.live.fallback import CommandNotStarted, run_workload

    path, overwrite = _report_path("run", report, no_report)
    line = _status(status, sys.stderr)
    try:
        result = run_workload(command, thresholds=thresholds, expect=expect, on_tick=line)
    except CommandNotStarted as err:
        click.echo(f"envsnap: error: {err}", err=True)
        return err.status
    _finish(result, path, overwrite, line)
    code = result.exit_code if result.exit_code is not None else 0
    if fail_on_fallback and fails_on_fallback(result, expect):
        click.echo(
            f"envsnap: exit {FALLBACK_EXIT} (--fail-on-fallback): the workload exited 0, "
            f"but the verdict is {result.verdict}",
            err=True,
        )
        return FALLBACK_EXIT
    return code


def watch_cli(
    pid: int,
    *,
    thresholds: Thresholds,
    expect: Expect | None,
    report: str | None,
    no_report: bool,
    status: bool,
    as_json: bool,
    export: str | None = None,
) -> int:
    """``envsnap watch``: 0 when the process ended, 128+n when a signal n stopped the watch.

    2 when the report was asked for and could not be written: the report is what ``watch`` is for.
    With ``export``, the verdict is also kept current in ``DIR/watch-<pid>.json`` for the exporter.
    """
    import click

    from envsnap.live.fallback import watch_process
    from envsnap.live.watch_state import chain, open_export

    path, overwrite = _report_path("watch", report, no_report)
    exporter = open_export(export, pid) if export is not None else None
    line = _status(status, sys.stderr)
    result = watch_process(pid, thresholds=thresholds, expect=expect, on_tick=chain(line, exporter))
    if exporter is not None:
        exporter.finish(result)
        if exporter.error is not None:
            click.echo(f"envsnap: warning: --export: {exporter.error}", err=True)
    written = _finish(result, path, overwrite, line)
    if as_json:
        click.echo(result.to_json())
    if not written:
        return int(ExitCode.BAD_INPUT)
    if result.interrupted:
        return 130 if result.signal in (None, "SIGINT") else 143
    return 0
