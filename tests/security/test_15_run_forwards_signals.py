"""15. ``envsnap run`` forwards SIGUSR1/SIGUSR2/SIGWINCH/SIGQUIT (and INT/TERM/HUP) to a real workload.

As timeout(1) and tini do: the signals a wrapper is sent are meant for what it wraps, and
envsnap itself survives them (SIGUSR1's default action would kill it and orphan the workload).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from envsnap.live.run_report import load_run_report

RECORD = r"""
import signal, sys, time
names = {signal.SIGUSR1: "USR1", signal.SIGUSR2: "USR2", signal.SIGWINCH: "WINCH", signal.SIGQUIT: "QUIT"}
seen = []
for signum in names:
    signal.signal(signum, lambda n, frame: seen.append(names[n]))
print("ready", flush=True)
deadline = time.time() + 20
while len(seen) < 4 and time.time() < deadline:
    time.sleep(0.02)
print("seen=" + ",".join(seen), flush=True)
sys.exit(5)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_user_signals_reach_the_workload_and_envsnap_survives(tmp_path: Path) -> None:
    report_path = tmp_path / "run.yaml"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("ENVSNAP_DEBUG", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "envsnap", "run", "--interval", "0.1", "--report", str(report_path), "--",
         sys.executable, "-c", RECORD],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    for signum in (signal.SIGUSR1, signal.SIGUSR2, signal.SIGWINCH, signal.SIGQUIT):
        os.kill(proc.pid, signum)
    out, err = proc.communicate(timeout=60)

    assert proc.returncode == 5, err  # the workload's own status: envsnap did not die
    assert sorted(out.strip().removeprefix("seen=").split(",")) == ["QUIT", "USR1", "USR2", "WINCH"]
    report = load_run_report(report_path)
    assert set(report.forwarded_signals or ()) == {"SIGUSR1", "SIGUSR2", "SIGWINCH", "SIGQUIT"}
