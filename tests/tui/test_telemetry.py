"""History and the psutil process join, which run in the sampling worker."""

from __future__ import annotations

import getpass
import os
import subprocess
import sys

from envsnap.snapshot.model import DeviceSample, Sample
from envsnap.tui.app import MAX_RETRY_DELAY_S, next_delay_s
from envsnap.tui.telemetry import (
    PsutilProcesses,
    TelemetryHistory,
    device_key,
    memory_activity_percent,
    sample_pids,
)
from tests.fakes.fake_telemetry import ReplaySource, a100_mig_host, v100_host


def test_history_keeps_recorded_points_and_skips_lost_devices() -> None:
    host = v100_host()
    source = ReplaySource(host)
    history = TelemetryHistory(length=3)
    for _ in range(4):
        series = history.add(Sample(captured_at="t", devices=source.read()))
    # Device 0 cycled through GPUs 0..3's recorded readings; only the last 3 are kept.
    assert series["nvidia-0"].gpu_util_percent == tuple(d.gpu_util_percent for d in host.devices[1:4])
    lost = DeviceSample(vendor="nvidia", index=0, status="lost", reason="GPU is lost")
    after = history.add(Sample(captured_at="t", devices=(lost,)))
    assert after["nvidia-0"] == series["nvidia-0"]  # no fake zero appended


def test_mig_gpu_without_utilization_adds_no_points() -> None:
    host = a100_mig_host()
    series = TelemetryHistory().add(Sample(captured_at="t", devices=host.devices))
    assert series[device_key(host.devices[0])].gpu_util_percent == ()
    # Memory activity falls back to used/total when the driver reports no memory utilization.
    assert memory_activity_percent(host.devices[0]) == 100.0 * 52428800 / 85899345920


def test_sample_pids() -> None:
    sample = Sample(captured_at="t", devices=v100_host().devices)
    assert sample_pids(sample) == [37305]


def test_psutil_join_of_a_real_process() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        lookup = PsutilProcesses()
        first = lookup.lookup([child.pid, os.getpid()])
        assert first[child.pid].user == getpass.getuser()
        command = first[child.pid].command
        assert command is not None
        assert "time.sleep(30)" in command
        assert first[child.pid].cpu_percent is None  # psutil has no interval to measure yet
        second = lookup.lookup([child.pid])
        cpu = second[child.pid].cpu_percent
        assert cpu is not None
        assert cpu >= 0.0
    finally:
        child.kill()
        child.wait()
    assert lookup.lookup([child.pid]) == {}  # gone: left out, not an error


def test_retry_delay_doubles_and_is_capped() -> None:
    assert [next_delay_s(1.0, n) for n in range(4)] == [1.0, 2.0, 4.0, 8.0]
    assert next_delay_s(1.0, 20) == MAX_RETRY_DELAY_S
