"""The state file ``envsnap watch --export DIR`` keeps current, and its reader for the metrics exporter.

A watch runs for hours in its own process; the exporter (``envsnap export prometheus`` from a
timer, or ``envsnap serve``) runs in another. They meet in a folder: each watch replaces
``DIR/watch-<pid>.json`` atomically whenever its verdict changes, and at least every
``HEARTBEAT_S`` seconds, and once more with ``active: false`` when it ends. The exporter reads the
folder on each scrape.

The folder may be shared, so the reader trusts nothing in it: only regular files named
``watch-<digits>.json``, at most ``MAX_STATE_BYTES`` each, decoded strictly (a verdict outside
the five is refused), at most ``MAX_WATCHES`` of them (the newest), and none not updated for
``MAX_AGE_S`` (a watch killed with SIGKILL stops updating, so its series go away on their own).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import psutil

from envsnap.errors import BadInput
from envsnap.live.monitor import LiveState
from envsnap.live.run_report import RunReport, Verdict
from envsnap.snapshot.files import check_writable, write_atomic

VERDICTS: tuple[Verdict, ...] = (
    "gpu-active",
    "cpu-fallback-suspected",
    "gpu-idle-while-busy",
    "no-accelerator",
    "inconclusive",
)
HEARTBEAT_S = 30.0
"""A running watch rewrites its state at least this often, so a fresh file means a live watch."""
MAX_AGE_S = 3600.0
"""States not updated for this long are left out (the watch ended an hour ago, or was killed)."""
MAX_WATCHES = 64
"""Most watches exported from one folder (the newest): bounds the series a folder can create."""
MAX_STATE_BYTES = 4096
_STATE_NAME = re.compile(r"watch-([0-9]{1,10})\.json")


class WatchState(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What one watch says about its process."""

    pid: int
    process: str | None = None
    """The process name (``comm``), e.g. ``python3``; the command line is not exported (secrets)."""
    verdict: Verdict
    active: bool
    """True while the watch runs; False once the process ended or the watch was stopped."""
    updated_at: float
    """Unix time of this write."""


def state_path(folder: Path, pid: int) -> Path:
    return folder / f"watch-{pid}.json"


class WatchExport:
    """Keeps ``DIR/watch-<pid>.json`` current from the monitor's ticks (an ``on_tick`` callback).

    Writing happens on the monitor thread: only when the verdict changed or the heartbeat is due,
    so a one-second sampling interval does not mean a file replaced every second. A failed write
    never stops the watch; the first error is kept in ``error`` for the end-of-watch summary.
    """

    def __init__(self, folder: Path, pid: int) -> None:
        self.folder = folder
        self.pid = pid
        self.process = _process_name(pid)
        self.error: str | None = None
        self._last_verdict: Verdict | None = None
        self._last_write = 0.0

    def __call__(self, state: LiveState) -> None:
        verdict = state.detector.verdict(has_devices=bool(state.devices))
        now = time.time()
        if verdict == self._last_verdict and now - self._last_write < HEARTBEAT_S:
            return
        self._write(verdict, active=True, now=now)

    def start(self) -> None:
        """The first state, before any sample: the process is watched, nothing judged yet."""
        self._write("inconclusive", active=True, now=time.time())

    def finish(self, report: RunReport) -> None:
        """The final verdict, marked inactive."""
        self._write(report.verdict, active=False, now=time.time())

    def _write(self, verdict: Verdict, *, active: bool, now: float) -> None:
        state = WatchState(pid=self.pid, process=self.process, verdict=verdict, active=active, updated_at=now)
        try:
            write_atomic(state_path(self.folder, self.pid), msgspec.json.encode(state).decode() + "\n")
        except BadInput as err:
            if self.error is None:
                self.error = str(err)
            return
        self._last_verdict, self._last_write = verdict, now


def open_export(folder: str, pid: int) -> WatchExport:
    """The ``--export DIR`` of a watch, refused now (``BadInput``) when its state file can't be written."""
    path = Path(folder)
    if not path.is_dir():
        raise BadInput(f"--export {folder}: no such folder (create it; the exporter reads it: --watch-dir)")
    check_writable(state_path(path, pid))
    return WatchExport(path, pid)


def chain(*callbacks: Callable[[LiveState], None] | None) -> Callable[[LiveState], None] | None:
    """One ``on_tick`` calling each callback given (None when none is)."""
    present = [callback for callback in callbacks if callback is not None]
    if not present:
        return None

    def each(state: LiveState) -> None:
        for callback in present:
            callback(state)

    return each


def _process_name(pid: int) -> str | None:
    with contextlib.suppress(psutil.Error):
        return psutil.Process(pid).name()
    return None


def read_states(folder: Path, *, now: float | None = None) -> list[WatchState]:
    """The current watch states in ``folder``, newest ``MAX_WATCHES``, sorted by PID.

    A missing folder is no watches; an unreadable, oversized, foreign or malformed file is skipped.
    """
    now = time.time() if now is None else now
    try:
        names = [(m.group(), int(m.group(1))) for m in map(_STATE_NAME.fullmatch, os.listdir(folder)) if m]
    except OSError:
        return []
    states: list[WatchState] = []
    for name, pid in names:
        state = _read_one(folder / name)
        if state is None or state.pid != pid:  # a file must speak for the PID in its name
            continue
        if now - state.updated_at <= MAX_AGE_S:
            states.append(state)
    newest = sorted(states, key=lambda s: s.updated_at, reverse=True)[:MAX_WATCHES]
    return sorted(newest, key=lambda s: s.pid)


def _read_one(path: Path) -> WatchState | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_STATE_BYTES:
            return None
        data = os.read(fd, MAX_STATE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        return msgspec.json.decode(data, type=WatchState, strict=True)
    except msgspec.ValidationError:
        return None
    except msgspec.DecodeError:
        return None
