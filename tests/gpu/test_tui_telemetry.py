"""The TUI's data path with real telemetry: NVML samples, history, and GPU processes joined with psutil."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

HOLDER = """
import sys, torch
a = torch.ones(64 << 20, dtype=torch.uint8, device="cuda")  # 64 MiB held on GPU 0
torch.cuda.synchronize()
print("ready", flush=True)
sys.stdin.read()  # hold it until the test closes stdin
"""


async def test_the_devices_tab_gets_real_samples_and_joins_a_cuda_process(tmp_path: Path) -> None:
    from envsnap.tui.app import EnvsnapApp
    from envsnap.tui.defaults import live_collector

    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ready"
        app = EnvsnapApp(
            interval_s=0.2, snapshot_dir=tmp_path / "snapshots", collector=live_collector(frameworks=False)
        )
        async with app.run_test(size=(120, 50)) as pilot:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60

            def samples() -> int:
                state = app.main.telemetry
                if state is None or not state.history:
                    return 0
                return max(len(h.gpu_util_percent) for h in state.history.values())

            while samples() < 5:
                assert loop.time() < deadline, "fewer than 5 real samples in 60 s"
                await pilot.pause(0.1)
            state = app.main.telemetry
            assert state is not None
            nvidia = [d for d in state.sample.devices if d.vendor == "nvidia"]
            assert nvidia
            assert all(d.status == "ok" for d in nvidia)
            assert all(d.memory_total_bytes and d.memory_total_bytes > 1 << 30 for d in nvidia)
            assert all(0.0 <= (d.gpu_util_percent or 0.0) <= 100.0 for d in nvidia)
            assert all(d.temperature_c is None or 0 < d.temperature_c < 120 for d in nvidia)
            await pilot.press("2")  # the Devices tab draws the real cards
            await pilot.pause(0.5)

            pids = {p.pid for d in nvidia for p in d.processes or ()}
            if holder.pid not in pids:
                pytest.skip(
                    f"NVML lists PIDs {sorted(pids)}, not ours ({holder.pid}): a container with host PIDs"
                )
            held = [p for d in nvidia for p in d.processes or () if p.pid == holder.pid]
            assert (held[0].used_memory_bytes or 0) >= 64 << 20
            while holder.pid not in (app.main.telemetry.processes if app.main.telemetry else {}):
                assert loop.time() < deadline, "the CUDA process was not joined with psutil"
                await pilot.pause(0.1)
            info = app.main.telemetry.processes[holder.pid] if app.main.telemetry else None
            assert info is not None
            assert "python" in (info.command or "")
    finally:
        if holder.stdin is not None:
            holder.stdin.close()
        holder.wait(timeout=60)
