"""Catch silent CPU fallback at the process level: ``envsnap run -- CMD`` and ``envsnap watch --pid``.

``run_workload`` starts the command with the terminal's stdin/stdout/stderr, relays signals to it
(live/signals.py), samples its whole process tree and every GPU on a background thread
(live/monitor.py, through the one shared Sampler), and returns a RunReport with a verdict
(live/verdict.py) once the command ends. ``watch_process`` does the same for a process that is
already running, until it exits or envsnap is interrupted. Nothing here prints or exits: the CLI
writes the report and the summary, and turns the workload's exit status into envsnap's.

Reports are scrubbed of secrets (live/scrub.py) as they are built: the workload's command line is
the usual place for a token.
"""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from types import FrameType

import msgspec
import psutil

from envsnap.errors import BadInput
from envsnap.live.absence import BackgroundExplanation, Explain, why_no_accelerator
from envsnap.live.monitor import LiveState, Monitor
from envsnap.live.process_tree import ProcessTree
from envsnap.live.run_report import Expect, RunReport, Thresholds
from envsnap.live.run_summary import RunFacts, build_report
from envsnap.live.sampler import Sampler
from envsnap.live.signals import SignalRelay, exit_status
from envsnap.snapshot.redact import redact_text
from envsnap.snapshot.scrub import scrub_report

OnTick = Callable[[LiveState], None]

NOT_FOUND = 127
"""Exit status when the command does not exist (as env(1), timeout(1) and shells report it)."""
NOT_EXECUTABLE = 126
"""Exit status when the command exists but can't be run (permissions, not an executable format)."""


class CommandNotStarted(BadInput):
    """The workload could not be started; ``status`` is 127 (not found) or 126 (can't run it).

    A BadInput, so API callers that catch BadInput keep working; the CLI exits with ``status``
    instead of 2, so the failure can't be confused with a workload that exits 2 itself.
    """

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _default_sampler() -> Sampler:
    from envsnap.live.sources import default_sampler

    return default_sampler()


def _sampler_and_explain(sampler: Sampler | None, explain: Explain | None) -> tuple[Sampler, Explain | None]:
    """The sampler to use, and what explains an empty one (the probes, for the default sampler)."""
    if sampler is not None:
        return sampler, explain
    sampler = _default_sampler()
    return sampler, explain if explain is not None or sampler.sources else why_no_accelerator


def _report(
    facts: RunFacts,
    monitor: Monitor,
    thresholds: Thresholds,
    expect: Expect | None,
    why: BackgroundExplanation | None,
) -> RunReport:
    with monitor.lock:
        report = build_report(
            facts, monitor.state, thresholds, expect=expect, has_sources=monitor.has_sources
        )
    if why is not None and report.verdict == "no-accelerator":
        report = msgspec.structs.replace(report, evidence=(*report.evidence, *why.result()))
    return scrub_report(report)


def _start(argv: Sequence[str]) -> subprocess.Popen[bytes]:
    """Start the workload with envsnap's own stdin, stdout and stderr.

    Raises:
        CommandNotStarted: the command can't be found (127) or run (126).
    """
    name = redact_text(argv[0])
    try:
        return subprocess.Popen(list(argv))
    except FileNotFoundError:
        raise CommandNotStarted(f"{name}: command not found", NOT_FOUND) from None
    except PermissionError:
        raise CommandNotStarted(f"{name}: permission denied (not executable?)", NOT_EXECUTABLE) from None
    except OSError as err:  # e.g. ENOEXEC, a file that is neither a binary nor a script with #!
        raise CommandNotStarted(f"{name}: cannot run: {err.strerror or err}", NOT_EXECUTABLE) from None


def run_workload(
    argv: Sequence[str],
    *,
    thresholds: Thresholds | None = None,
    expect: Expect | None = None,
    sampler: Sampler | None = None,
    proc_root: Path = Path("/proc"),
    on_tick: OnTick | None = None,
    on_start: Callable[[int], None] | None = None,
    explain: Explain | None = None,
) -> RunReport:
    """Run a command to completion while watching it for CPU fallback.

    Args:
        argv: the command and its arguments.
        thresholds: sampling interval and verdict thresholds (defaults documented on Thresholds).
        expect: only count devices of this backend.
        sampler: the telemetry sampler (closed when the run ends); default: every backend
            available on this host.
        proc_root: ``/proc`` (tests point it at a fake tree for the PID-namespace check).
        on_tick: called after every sample (the live status line).
        on_start: called with the workload's PID once it runs.
        explain: says why there is no accelerator, quoted when the verdict is ``no-accelerator``;
            by default the vendor probes, when the default sampler finds no backend.

    Returns:
        The report (secrets scrubbed); ``exit_code`` is the workload's status, 128+n when signal n
        ended it.

    Raises:
        BadInput: empty command.
        CommandNotStarted: a command that can't be started (a BadInput with ``status`` 127/126).
    """
    if not argv:
        raise BadInput("no command given: envsnap run [OPTIONS] -- COMMAND [ARGS...]")
    thresholds = thresholds or Thresholds()
    sampler, explain = _sampler_and_explain(sampler, explain)
    started: list[subprocess.Popen[bytes]] = []

    def start() -> None:
        started.append(_start(argv))

    def forward(signum: int) -> None:
        started[0].send_signal(signum)

    relay = SignalRelay(forward)
    started_at, t0 = _utc_now(), time.monotonic()
    try:
        with relay.installed(start):
            proc = started[0]
            if on_start is not None:
                on_start(proc.pid)
            # Started here, with signals blocked, so no signal can land in its thread.
            why = BackgroundExplanation(explain) if explain is not None else None
            monitor = Monitor(
                ProcessTree(proc.pid),
                sampler,
                thresholds,
                expect=expect,
                proc_root=proc_root,
                on_tick=on_tick,
            )
            monitor.start()
            returncode = proc.wait()
            monitor.stop()
    finally:
        sampler.close()
    code, signal_name = exit_status(returncode)
    facts = RunFacts(
        mode="run",
        pid=proc.pid,
        command=tuple(argv),
        started_at=started_at,
        ended_at=_utc_now(),
        duration_s=time.monotonic() - t0,
        exit_code=code,
        signal=signal_name,
        forwarded_signals=tuple(relay.forwarded),
    )
    return _report(facts, monitor, thresholds, expect, why)


def _alive(proc: psutil.Process) -> bool:
    """Running and not a zombie (a zombie has exited; only its parent hasn't collected it yet)."""
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def watch_process(
    pid: int,
    *,
    thresholds: Thresholds | None = None,
    expect: Expect | None = None,
    sampler: Sampler | None = None,
    proc_root: Path = Path("/proc"),
    on_tick: OnTick | None = None,
    stop: threading.Event | None = None,
    explain: Explain | None = None,
) -> RunReport:
    """Watch a running process (and its descendants) until it exits, ``stop`` is set, or Ctrl-C.

    Args:
        pid: the process to watch.
        thresholds, expect, sampler, proc_root, on_tick, explain: as for ``run_workload``.
        stop: set it to end watching early (SIGINT/SIGTERM set it too, on the main thread).

    Raises:
        BadInput: no such process, or not allowed to inspect it.
    """
    thresholds = thresholds or Thresholds()
    stop = stop or threading.Event()
    try:
        tree = ProcessTree(pid)
        target = psutil.Process(pid)
    except psutil.NoSuchProcess:
        raise BadInput(f"no process with PID {pid}") from None
    except psutil.AccessDenied:
        raise BadInput(f"not allowed to inspect PID {pid}") from None
    sampler, explain = _sampler_and_explain(sampler, explain)
    caught: list[str] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        caught.append(signal.Signals(signum).name)
        stop.set()

    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    started_at, t0 = _utc_now(), time.monotonic()
    monitor = Monitor(tree, sampler, thresholds, expect=expect, proc_root=proc_root, on_tick=on_tick)
    command = tree.command_line()
    why = BackgroundExplanation(explain) if explain is not None else None
    try:
        monitor.start()
        while not stop.wait(0.2) and _alive(target):
            # A process caught mid-exec (a loaded machine, a PID just spawned) has no command line yet.
            command = command or tree.command_line()
        command = command or tree.command_line()
        monitor.stop()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        sampler.close()
    facts = RunFacts(
        mode="watch",
        pid=pid,
        command=command,
        started_at=started_at,
        ended_at=_utc_now(),
        duration_s=time.monotonic() - t0,
        signal=caught[0] if caught else None,
        interrupted=stop.is_set(),
    )
    return _report(facts, monitor, thresholds, expect, why)
