"""envsnap run on a real GPU: a CUDA matmul loop is gpu-active; a CPU loop beside an idle GPU, fallback."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from envsnap.live.run_report import load_run_report
from tests.gpu.conftest import envsnap, keep

pytestmark = pytest.mark.gpu

SECONDS = 8
# Sampling every 0.2 s, suspicious after 2 s: an 8 s run is judged on dozens of samples.
OPTIONS = ["--interval", "0.2", "--sustain", "2", "--expect", "cuda", "--no-status"]

MATMUL = f"""
import time, torch
a = torch.randn(4096, 4096, device="cuda")
end = time.monotonic() + {SECONDS}
while time.monotonic() < end:
    b = a @ a
    torch.cuda.synchronize()
"""

CPU_LOOP = f"""
import time
end = time.monotonic() + {SECONDS}
while time.monotonic() < end:
    pass
"""


def _busiest_gpu_util() -> float:
    import pynvml

    pynvml.nvmlInit()
    try:
        count = pynvml.nvmlDeviceGetCount()
        handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        return max(float(pynvml.nvmlDeviceGetUtilizationRates(h).gpu) for h in handles)
    finally:
        pynvml.nvmlShutdown()


def test_a_cuda_matmul_loop_is_gpu_active(tmp_path: Path, artifacts: Path | None) -> None:
    done = envsnap(
        "run", *OPTIONS, "--report", "matmul.yaml", "--", sys.executable, "-c", MATMUL, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    report = load_run_report(tmp_path / "matmul.yaml")
    assert report.verdict == "gpu-active", report.summary
    assert report.attribution in ("found", "uncertain"), report.attribution_reason
    assert report.devices
    assert max(d.util_percent_max or 0.0 for d in report.devices) > 50.0
    if report.attribution == "found":  # PIDs visible (not a container with host PIDs)
        assert max(d.tree_memory_max_bytes or 0 for d in report.devices) > 64 << 20  # a = 64 MiB
        assert any(tick.on_gpu for tick in report.timeline)
    keep(tmp_path / "matmul.yaml", artifacts)


def test_a_cpu_loop_beside_an_idle_gpu_is_cpu_fallback_suspected(
    tmp_path: Path, artifacts: Path | None
) -> None:
    if _busiest_gpu_util() > 5.0:
        pytest.skip("a GPU is busy with another workload: 'beside an idle GPU' can't be arranged here")
    done = envsnap(
        "run", *OPTIONS, "--cpu-busy", "50", "--report", "cpu.yaml", "--", sys.executable, "-c", CPU_LOOP,
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = load_run_report(tmp_path / "cpu.yaml")
    assert report.verdict == "cpu-fallback-suspected", report.summary
    assert report.windows
    assert report.windows[0].end_s - report.windows[0].start_s >= 2.0
    assert report.devices
    assert all((d.tree_memory_max_bytes or 0) == 0 for d in report.devices)
    keep(tmp_path / "cpu.yaml", artifacts)
