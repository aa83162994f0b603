"""Text of the device cards and gauges, checked directly (no app needed)."""

from __future__ import annotations

from envsnap.snapshot.model import DeviceSample
from envsnap.tui.telemetry import DeviceHistory
from envsnap.tui.widgets.device_card import MAX_PROCESS_ROWS, DeviceView, card_lines
from envsnap.tui.widgets.gauges import bar, spark
from tests.fakes.fake_telemetry import GPU_IS_LOST, v100_host


def test_spark_uses_a_fixed_scale() -> None:
    assert spark([0, 50, 100], 5) == "  " + " ▄█"
    assert spark([1.0], 1) == "▁"  # busy at all never draws as idle
    assert spark([10, 20, 30], 2) == spark([20, 30], 2)


def test_bar() -> None:
    assert bar(0.5, 10) == ("█" * 5, "░" * 5)
    assert bar(None, 3) == ("", "···")


def test_card_text_of_a_recorded_v100() -> None:
    device = v100_host().devices[0]
    lines = [line.plain for line in card_lines(DeviceView(sample=device, arch="sm_70", pcie_max="3×16"), 76)]
    assert lines[0] == "sm_70 · 0000:00:0D.0 · PCIe 3×16 (max 3×16) · 66 °C"
    vram, power = lines[1].split(" │ ")
    assert vram.startswith("vram ")
    assert vram.endswith(" 30.9/31.7 GiB")
    assert power.startswith("power ")
    assert power.endswith(" 233/250 W")
    gpu, memory = lines[2].split(" │ ")
    assert gpu.split() == ["gpu", "97%"]  # no history yet: no sparkline
    assert memory.split() == ["mem", "bw", "52%"]
    assert lines[3] == "clocks 1410/1410/1107 MHz (gfx/sm/mem)"
    assert lines[-1].split() == ["37305", "–", "–", "30.9", "GiB", "python"]
    assert all(len(line) <= 76 for line in lines)


def test_sparkline_shows_history_at_the_right() -> None:
    device = v100_host().devices[0]
    view = DeviceView(sample=device, history=DeviceHistory((0.0, 50.0, 97.0), (52.0,)))
    gpu, _ = card_lines(view, 76)[2].plain.split(" │ ")
    assert gpu.endswith(" ▄█")


def test_lost_card() -> None:
    lost = DeviceSample(
        vendor="nvidia", index=2, name="Tesla V100S-PCIE-32GB", status="lost", reason=GPU_IS_LOST
    )
    lines = [line.plain for line in card_lines(DeviceView(sample=lost), 60)]
    assert lines[-1] == f"GPU lost: {GPU_IS_LOST}"


def test_process_rows_are_capped() -> None:
    import msgspec

    device = v100_host().devices[0]
    procs = tuple(msgspec.structs.replace(device.processes[0], pid=pid) for pid in range(100, 107))  # type: ignore[index]
    lines = [
        line.plain
        for line in card_lines(
            DeviceView(sample=msgspec.structs.replace(device, processes=procs), history=DeviceHistory()), 76
        )
    ]
    assert lines[-1] == f"… {7 - MAX_PROCESS_ROWS} more"
