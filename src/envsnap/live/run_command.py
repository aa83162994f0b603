"""The terminal side of ``envsnap run`` and ``envsnap watch``: report file, live status, summary.

cli.py parses the options and calls ``run_cli``/``watch_cli``; this module wires them to
live/fallback.py and decides what reaches the terminal: the live status line (stderr, only on a
terminal), the verdict summary (stderr, always), the report file (YAML, written atomically). stdout
belongs to the workload under ``run``; under ``watch`` it carries the report as JSON on ``--json``.

Where the report goes: ``--report PATH``, else ``envsnap-run-<UTC time>.yaml`` in the current
folder (written by default because the summary quotes it and a long run is expensive to repeat),
or nowhere with ``--no-report``. The path is checked before the workload starts, so a typo can't
cost a finished training run its report.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

from envsnap.errors import BadInput
from envsnap.live.run_report import Expect, RunReport, Thresholds, save_run_report
from envsnap.live.status_line import StatusLine

_VERDICT_COLOR = {
    "gpu-active": "green",
    "cpu-fallback-suspected": "red",
    "gpu-idle-while-busy": "yellow",
    "no-accelerator": "cyan",
    "inconclusive": "white",
}


def default_report_path(now: datetime | None = None) -> Path:
    """``envsnap-run-<UTC time>.yaml`` in the current folder."""
    now = now or datetime.now(timezone.utc)
    return Path(f"envsnap-run-{now.strftime('%Y%m%dT%H%M%SZ')}.yaml")


def _check_writable(path: Path) -> None:
    """Refuse a report path that can't be written, before any work is done.

    Raises:
        BadInput: a folder, or a folder that can't be created or written.
    """
    if path.is_dir():
        raise BadInput(f"--report {path}: is a folder; give a file name")
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise BadInput(f"--report {path}: cannot create {folder}: {err.strerror or err}") from None
    if not os.access(folder, os.W_OK):
        raise BadInput(f"--report {path}: folder {folder} is not writable")


def _status(enabled: bool, stream: TextIO) -> StatusLine | None:
    if not enabled or not stream.isatty() or os.environ.get("TERM") == "dumb":
        return None
    return StatusLine(stream)


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


def _finish(report: RunReport, path: Path | None, status: StatusLine | None) -> None:
    import click

    if status is not None:
        status.clear()
    written: Path | None = None
    if path is not None:
        try:
            written = save_run_report(report, path)
        except BadInput as err:  # the workload's outcome still counts; say why the file is missing
            click.echo(f"envsnap: error: {err}", err=True)
    color = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
    click.echo(summary_text(report, written, color), err=True)


def _report_path(report: str | None, no_report: bool) -> Path | None:
    if no_report:
        return None
    path = Path(report) if report else default_report_path()
    _check_writable(path)
    return path


def run_cli(
    command: Sequence[str],
    *,
    thresholds: Thresholds,
    expect: Expect | None,
    report: str | None,
    no_report: bool,
    status: bool,
) -> int:
    """``envsnap run``: run the command, write the report, print the summary; the workload's exit code."""
    from envsnap.live.fallback import run_workload

    path = _report_path(report, no_report)
    line = _status(status, sys.stderr)
    result = run_workload(command, thresholds=thresholds, expect=expect, on_tick=line)
    _finish(result, path, line)
    return result.exit_code if result.exit_code is not None else 0


def watch_cli(
    pid: int,
    *,
    thresholds: Thresholds,
    expect: Expect | None,
    report: str | None,
    no_report: bool,
    status: bool,
    as_json: bool,
) -> int:
    """``envsnap watch``: 0 when the process ended, 128+n when a signal n stopped the watch."""
    import click
    import msgspec

    from envsnap.live.fallback import watch_process

    path = _report_path(report, no_report)
    line = _status(status, sys.stderr)
    result = watch_process(pid, thresholds=thresholds, expect=expect, on_tick=line)
    _finish(result, path, line)
    if as_json:
        click.echo(msgspec.json.encode(result).decode())
    if result.interrupted:
        return 130 if result.signal in (None, "SIGINT") else 143
    return 0
