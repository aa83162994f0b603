"""Issue 24: what people who otherwise run nvitop look for on the Devices tab — processes sorted by
memory (o cycles CPU % and PID) and a line with this host's CPU and RAM."""

from __future__ import annotations

from textual.widgets import Static

from envsnap.snapshot.model import DeviceSample, GpuProcess
from envsnap.tui.telemetry import HostLoad, ProcessInfo, PsutilHost
from envsnap.tui.widgets.device_card import DeviceCard, DeviceView, card_lines
from tests.tui.conftest import AppFactory, until_ready


def _device() -> DeviceSample:
    processes = (
        GpuProcess(pid=300, name="python", used_memory_bytes=30 * 2**30),
        GpuProcess(pid=100, name="python", used_memory_bytes=2 * 2**30),
        GpuProcess(pid=200, name="python", used_memory_bytes=8 * 2**30),
    )
    return DeviceSample(
        vendor="nvidia", index=0, name="NVIDIA H100 80GB HBM3", status="ok", processes=processes
    )


def _pids(view: DeviceView) -> list[int]:
    rows = [str(line) for line in card_lines(view, 100)]
    start = next(i for i, row in enumerate(rows) if "COMMAND" in row)
    return [int(row.split()[0]) for row in rows[start + 1 :]]


def test_processes_sort_by_memory_cpu_or_pid() -> None:
    info = {
        pid: ProcessInfo(pid, "alice", "python train.py", cpu)
        for pid, cpu in ((100, 5.0), (200, 99.0), (300, 40.0))
    }
    device = _device()
    assert _pids(DeviceView(sample=device, processes=info)) == [300, 200, 100]  # GPU memory, largest first
    assert _pids(DeviceView(sample=device, processes=info, process_sort="cpu")) == [200, 300, 100]
    assert _pids(DeviceView(sample=device, processes=info, process_sort="pid")) == [100, 200, 300]
    header = next(
        str(line)
        for line in card_lines(DeviceView(sample=device, process_sort="cpu"), 100)
        if "PID" in str(line)
    )
    assert "CPU%▼" in header
    assert "GPU MEM▼" not in header


def test_psutil_host_reads_this_machine() -> None:
    source = PsutilHost()
    first, second = source.read(), source.read()
    assert first.cpu_percent is None  # no interval to measure over yet
    assert second.cpu_percent is not None
    assert 0.0 <= second.cpu_percent <= 100.0
    assert second.cpus
    assert second.cpus >= 1
    assert second.memory_total_bytes
    assert 0 < (second.memory_used_bytes or 0) <= second.memory_total_bytes


async def test_host_line_and_o_on_the_devices_tab(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("2")
        await pilot.pause()
        status = str(app.main.query_one("#devices-status", Static).render())
        assert "host  CPU 12 % of 64 · RAM 171.0/512.0 GiB · load 7.50" in status
        card = app.main.query(DeviceCard).first()
        assert card.view is not None
        assert card.view.process_sort == "memory"
        await pilot.press("o")
        await pilot.pause()
        assert card.view.process_sort == "cpu"


async def test_a_failing_host_read_leaves_the_gpus_alone(make_app: AppFactory) -> None:
    class Broken:
        def read(self) -> HostLoad:
            raise PermissionError("/proc/stat: permission denied")

    app = make_app(host_load=Broken())
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        assert app.main.telemetry is not None
        assert app.main.telemetry.host is None
        assert app.sampler_failures == 0
