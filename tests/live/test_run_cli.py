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
import re
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
    assert "\x1b]2;envsnap ▸".encode() in output  # the live status, in the title: stderr is a terminal
    report = load_run_report(report_path)
    assert report.forwarded_signals is None
    assert report.exit_code == 7


def test_a_command_that_cannot_start_exits_127_or_126_like_env(tmp_path: Path) -> None:
    not_executable = tmp_path / "data.txt"
    not_executable.write_text("not a program\n", encoding="utf-8")
    before = sorted(tmp_path.iterdir())

    missing = _envsnap(["run", "--", "no-such-command-envsnap"], tmp_path)
    denied = _envsnap(["run", "--", str(not_executable)], tmp_path)

    # Not 2: a workload's own exit 2 (argparse) must not look like "envsnap could not start it".
    assert missing.returncode == 127
    assert missing.stderr == "envsnap: error: no-such-command-envsnap: command not found\n"
    assert denied.returncode == 126
    assert denied.stderr == f"envsnap: error: {not_executable}: permission denied (not executable?)\n"
    assert sorted(tmp_path.iterdir()) == before  # no report, no leftover from the path check


def _envsnap(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENVSNAP, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**_envsnap_env(), "NO_COLOR": "1"},
        timeout=60,
    )


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
    assert "is a directory" in done.stderr
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


# ------------------------------------------------------------------- QA findings C4, M10, M11, M13, 7

HF = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
ANTHROPIC = "sk-ant-api03-" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2qS5uV8xA1"
SECRET_ARGS = [f"--token={HF}", "--password", "hunter2", "--api-key", ANTHROPIC, "https://bob:pw@h/x"]


def test_secrets_on_the_command_line_reach_neither_the_report_nor_the_terminal(tmp_path: Path) -> None:
    done = _envsnap(["run", "--report", "r.yaml", "--", "sh", "-c", "true", *SECRET_ARGS], tmp_path)

    assert done.returncode == 0, done.stderr
    text = (tmp_path / "r.yaml").read_text(encoding="utf-8")
    for secret in (HF, "hunter2", ANTHROPIC, "bob:pw@"):
        assert secret not in text
        assert secret not in done.stderr
    assert load_run_report(tmp_path / "r.yaml").command == (
        "sh", "-c", "true", "--token=<redacted>", "--password", "<redacted>", "--api-key", "<redacted>",
        "https://bob:<redacted>@h/x",
    )  # fmt: skip


def test_watch_json_holds_no_secret(tmp_path: Path) -> None:
    target = subprocess.Popen([*sleeper(1.5), *SECRET_ARGS])
    try:
        done = _envsnap(
            ["watch", "--pid", str(target.pid), "--interval", "0.1", "--no-report", "--json"], tmp_path
        )
    finally:
        target.wait()
    assert done.returncode == 0, done.stderr
    for secret in (HF, "hunter2", ANTHROPIC, "bob:pw@"):
        assert secret not in done.stdout
    assert json.loads(done.stdout)["command"][-4] == "<redacted>"


STEPS = "import time\nfor i in (1, 2, 3):\n    print(f'step-{i}', flush=True)\n    time.sleep(0.35)\n"
"""A workload that writes a line now and then, while the status is being updated."""

_TITLE = re.compile(rb"\x1b\]2;[^\x07]*\x07|\x1b\[2[23];2t")


def test_the_live_status_never_lands_in_the_workloads_output(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [*ENVSNAP, "run", "--interval", "0.1", "--no-report", "--", sys.executable, "-c", STEPS],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
        preexec_fn=_take_terminal,
        env={**_envsnap_env(), "TERM": "xterm", "NO_COLOR": "1"},
    )
    os.close(slave)
    try:
        output = _read_until(master, b"workload exit status 0", timeout_s=30)
        output += _read_until(master, b"\n", timeout_s=5)
        returncode = proc.wait(timeout=30)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()

    assert returncode == 0
    titles = re.findall(rb"\x1b\]2;([^\x07]*)\x07", output)
    assert len([t for t in titles if t.startswith("envsnap ▸".encode())]) >= 3  # updated during the run
    assert output.count(b"\x1b[22;2t") == output.count(b"\x1b[23;2t") == 1  # the user's title comes back
    text = _TITLE.sub(b"", output)
    # The workload's lines arrive whole, one per line, and nothing of envsnap's sits between them.
    assert text.startswith(b"step-1\r\nstep-2\r\nstep-3\r\nenvsnap run: "), text[:200]
    assert b"\x1b[2K" not in output


def test_reports_in_pseudo_filesystems_are_refused_before_the_workload_starts(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    workload = [sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"]
    for path in ("/sys/envsnap-x.yaml", "/proc/envsnap-x.yaml"):
        done = _envsnap(["run", "--report", path, "--", *workload], tmp_path)
        assert done.returncode == 2
        assert done.stderr.startswith(f"envsnap: error: --report {path}: cannot write: ")
        assert done.stderr.count("\n") == 1
        assert not marker.exists()


def test_a_report_that_fails_at_the_end_keeps_the_workloads_status(tmp_path: Path) -> None:
    # The workload turns the report's folder into a file: the final write fails.
    (tmp_path / "out").mkdir()
    done = _envsnap(
        ["run", "--report", "out/r.yaml", "--", "sh", "-c", "rm -r out && touch out && exit 3"], tmp_path
    )

    assert done.returncode == 3
    assert "envsnap: error: report not written: out/r.yaml: cannot write" in done.stderr
    assert "workload exit status 3" in done.stderr
    assert "report: " not in done.stderr


def test_watch_exits_2_when_its_report_cannot_be_written(tmp_path: Path) -> None:
    # Long enough for envsnap to start watching (and check the path) first, even on a loaded machine.
    code = "import pathlib, shutil, time; time.sleep(2); shutil.rmtree('out'); pathlib.Path('out').touch()"
    (tmp_path / "out").mkdir()
    target = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path)
    try:
        done = _envsnap(
            ["watch", "--pid", str(target.pid), "--interval", "0.1", "--report", "out/w.yaml"], tmp_path
        )
    finally:
        target.wait()
    assert done.returncode == 2
    assert "report not written" in done.stderr


def test_runs_started_together_never_overwrite_each_others_default_report(tmp_path: Path) -> None:
    runs = [
        subprocess.Popen(
            [*ENVSNAP, "run", "--no-status", "--", "true"],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=_envsnap_env(),
        )
        for _ in range(3)
    ]
    assert [run.wait(timeout=60) for run in runs] == [0, 0, 0]
    reports = sorted(tmp_path.glob("envsnap-run-*.yaml"))
    assert len(reports) == 3
    assert {load_run_report(path).pid for path in reports}.__len__() == 3
    assert all(re.fullmatch(r"envsnap-run-\d{8}T\d{6}\.\d{3}Z-\d+\.yaml", p.name) for p in reports)


def test_fail_on_fallback_gates_ci_without_masking_the_workloads_status(tmp_path: Path) -> None:
    # --expect mps on Linux: there is never such a device, so the verdict is no-accelerator.
    gate = ["run", "--no-report", "--expect", "mps", "--fail-on-fallback", "--"]

    failed = _envsnap([*gate, "true"], tmp_path)
    own_failure = _envsnap([*gate, "sh", "-c", "exit 3"], tmp_path)
    default = _envsnap(["run", "--no-report", "--expect", "mps", "--", "true"], tmp_path)

    assert failed.returncode == 69
    assert failed.stderr.endswith(
        "envsnap: exit 69 (--fail-on-fallback): the workload exited 0, but the verdict is no-accelerator\n"
    )
    assert own_failure.returncode == 3
    assert "--fail-on-fallback" not in own_failure.stderr
    assert default.returncode == 0


def test_a_json_report_name_writes_json(tmp_path: Path) -> None:
    done = _envsnap(["run", "--report", "r.json", "--", "true"], tmp_path)

    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (data["report"], data["mode"], data["exit_code"]) == ("envsnap-run", "run", 0)
    assert load_run_report(tmp_path / "r.json").verdict == data["verdict"]
