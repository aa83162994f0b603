"""``envsnap run`` / ``envsnap watch`` as a user runs them: a real envsnap process, real signals, a pty.

The telemetry backends are this host's own (``default_sources()``), so on a machine without a
GPU the verdict is ``no-accelerator``; on one with a GPU the tests still hold, because they check
the verdict against the devices the report lists.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from envsnap.live.run_report import load_run_report
from tests.live.conftest import busy, sleeper

pytestmark = pytest.mark.slow

ENVSNAP = [sys.executable, "-m", "envsnap"]
FAST_OPTIONS = ["--interval", "0.1", "--sustain", "0.5", "--cpu-busy", "25"]

COUNT_SIGINTS = r"""
import signal, sys, time
hits = []
signal.signal(signal.SIGINT, lambda signum, frame: hits.append(signum))
print("ready", flush=True)
deadline = time.monotonic() + 15
while not hits and time.monotonic() < deadline:
    time.sleep(0.02)
time.sleep(0.6)  # a second, duplicated SIGINT would land in this time
print(f"sigints={len(hits)}", flush=True)
sys.exit(7)
"""
"""A workload that counts the SIGINTs it gets and exits 7."""


def _envsnap_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("ENVSNAP_DEBUG", None)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def test_exit_status_report_and_summary(tmp_path: Path) -> None:
    done = subprocess.run(
        [*ENVSNAP, "run", *FAST_OPTIONS, "--", *busy(0.8, exit_code=3)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_envsnap_env(),
        timeout=60,
    )

    assert done.returncode == 3
    reports = list(tmp_path.glob("envsnap-run-*.yaml"))
    assert len(reports) == 1
    report = load_run_report(reports[0])
    assert report.exit_code == 3
    assert report.command == tuple(busy(0.8, exit_code=3))
    assert (report.verdict == "no-accelerator") == (report.devices is None)
    if report.verdict == "no-accelerator":  # the vendor probes say why, in their own words
        assert any(line.startswith("NVIDIA: ") for line in report.evidence)
        assert any(line.startswith("AMD: ") for line in report.evidence)
    assert done.stderr.startswith(f"envsnap run: {report.verdict}\n")
    assert report.summary in done.stderr
    assert f"report: {reports[0].name}" in done.stderr
    assert "workload exit status 3" in done.stderr


def test_sigint_sent_to_envsnap_is_forwarded_once(tmp_path: Path) -> None:
    report_path = tmp_path / "run.yaml"
    proc = subprocess.Popen(
        [
            *ENVSNAP,
            "run",
            "--interval",
            "0.1",
            "--report",
            str(report_path),
            "--",
            sys.executable,
            "-c",
            COUNT_SIGINTS,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_envsnap_env(),
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    os.kill(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)

    assert proc.returncode == 7, err
    assert "sigints=1" in out
    report = load_run_report(report_path)
    assert report.forwarded_signals == ("SIGINT",)
    assert report.exit_code == 7


def test_sigterm_sent_to_envsnap_ends_the_workload(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [*ENVSNAP, "run", "--interval", "0.1", "--no-report", "--", sys.executable, "-c", COUNT_SIGINTS],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_envsnap_env(),
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=30)

    assert proc.returncode == 128 + signal.SIGTERM
    assert "workload exit status 143 (SIGTERM)" in err
    assert not list(tmp_path.glob("*.yaml"))


def _take_terminal() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)  # the pty becomes this new session's controlling terminal


def _read_until(master: int, needle: bytes, timeout_s: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout_s
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if not ready:
            continue
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: every holder of the terminal has exited
            break
        if not chunk:
            break
        seen += chunk
    return seen


def test_ctrl_c_on_a_terminal_reaches_the_workload_once_and_the_report_is_written(tmp_path: Path) -> None:
    report_path = tmp_path / "run.yaml"
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [
            *ENVSNAP,
            "run",
            "--interval",
            "0.1",
            "--report",
            str(report_path),
            "--",
            sys.executable,
            "-c",
            COUNT_SIGINTS,
        ],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
        preexec_fn=_take_terminal,
        env={**_envsnap_env(), "TERM": "xterm"},
    )
    os.close(slave)
    try:
        output = _read_until(master, b"ready", timeout_s=20)
        assert b"ready" in output
        time.sleep(0.3)  # let the status line draw at least once
        os.write(master, b"\x03")  # Ctrl-C: the terminal signals the whole foreground group
        output += _read_until(master, b"report: ", timeout_s=30)
        output += _read_until(master, b"\n", timeout_s=5)
        returncode = proc.wait(timeout=30)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()

    assert returncode == 7
    assert b"sigints=1" in output  # not 2: envsnap did not forward the terminal's SIGINT
    assert "envsnap ▸".encode() in output  # the live status line, since stderr is a terminal
    report = load_run_report(report_path)
    assert report.forwarded_signals is None
    assert report.exit_code == 7


def test_unknown_command_is_a_one_line_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [*ENVSNAP, "run", "--", "no-such-command-envsnap"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_envsnap_env(),
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == "envsnap: error: no-such-command-envsnap: command not found\n"
    assert not list(tmp_path.iterdir())


def test_unwritable_report_path_is_refused_before_the_workload_starts(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    workload = [sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"]
    done = subprocess.run(
        [*ENVSNAP, "run", "--report", str(tmp_path), "--", *workload],
        capture_output=True,
        text=True,
        env=_envsnap_env(),
        timeout=60,
    )
    assert done.returncode == 2
    assert "is a folder" in done.stderr
    assert not marker.exists()


def test_watch_reports_on_a_running_process_as_json(tmp_path: Path) -> None:
    target = subprocess.Popen(sleeper(1.0))
    try:
        done = subprocess.run(
            [*ENVSNAP, "watch", "--pid", str(target.pid), "--interval", "0.1", "--no-report", "--json"],
            capture_output=True,
            text=True,
            env=_envsnap_env(),
            timeout=60,
        )
    finally:
        target.wait()
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["mode"] == "watch"
    assert data["pid"] == target.pid
    assert data["verdict"] in ("no-accelerator", "inconclusive", "gpu-active")
    assert done.stderr.startswith("envsnap watch: ")


def test_watch_of_a_missing_pid_is_a_usage_error() -> None:
    gone = subprocess.Popen(sleeper(0))
    gone.wait()
    done = subprocess.run(
        [*ENVSNAP, "watch", "--pid", str(gone.pid)],
        capture_output=True,
        text=True,
        env=_envsnap_env(),
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == f"envsnap: error: no process with PID {gone.pid}\n"
