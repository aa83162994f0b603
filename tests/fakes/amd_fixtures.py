"""Real AMD captures (rocm-smi and amd-smi JSON in tests/data/amd/) turned into envsnap models.

Reusable by any test that needs AMD devices or telemetry recorded on real hardware: the AMD probe
tests compare what the probe reads (through the fake amdsmi or a sysfs tree) with these, and the TUI
tests show ``mi250_samples()`` as a live MI250 host. The parsing is independent of the probe's own
code on purpose, so the two must agree for the tests to pass.

Captures (see tests/data/SOURCES.md for their origin):
- ``MI100X4``: ``rocm-smi ... --json`` of 4 × MI100, ROCm 6.0.2, amdgpu 6.3.6; ``MI100X6``: 6 × MI100,
  ROCm 5.7.1, with one KFD process (``--showpids``);
- ``RX6700XT``: the same flags on a Radeon RX 6700 XT, rocm-smi of ROCm 6.1.2;
- ``MI250_ROCM6`` / ``MI250_ROCM5``: ``rocm-smi -a --json``, one MI250 GCD each, from two boards;
- ``MI210_STATIC``: ``amd-smi static --json`` of an MI210; ``RADEON_METRIC``: ``amd-smi metric --json``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from envsnap.snapshot.model import AmdDevice, DeviceSample
from tests.conftest import DATA

AMD_DATA = DATA / "amd"
MI100X4 = AMD_DATA / "4x-mi100_rocm-6.0.2_drv-6.3.6_telegraf-flags.json"
RX6700XT = AMD_DATA / "radeon-rx6700xt_rocm-6.1.2_drv-6.3.6_telegraf-flags.json"
MI250_ROCM6 = AMD_DATA / "mi250-oam_rocm-6.x_drv-6.2.4_rocm-smi-a-json_EXTRACTED.json"
MI250_ROCM5 = AMD_DATA / "mi250-oam_rocm-5.x_drv-6.2.4_rocm-smi-a-json_EXTRACTED.json"
MI210_STATIC = AMD_DATA / "mi210_amd-smi-static-json_EXTRACTED.json"
RADEON_METRIC = AMD_DATA / "radeon-unknown-48gb_amd-smi-metric.json"
MI100X6 = AMD_DATA / "6x-mi100_rocm-5.7.1_drv-6.2.4_telegraf-flags.json"

MIB = 1024 * 1024
"""amd-smi's "MB" is MiB (amdsmi divides byte counts by 1024²)."""


def load(path: Path) -> Any:
    """A capture's JSON."""
    return json.loads(path.read_text(encoding="utf-8"))


def number(value: Any) -> float | None:
    """A rocm-smi/amd-smi value as a number: ``"53.0"``, ``{"value": 34, "unit": "W"}``; None for N/A."""
    if isinstance(value, dict):
        value = value.get("value")
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def rocm_smi_cards(path: Path) -> list[dict[str, str]]:
    """The ``cardN`` entries of a rocm-smi capture, in card order."""
    data = load(path)
    names = sorted((k for k in data if re.fullmatch(r"card\d+", k)), key=lambda k: int(k[4:]))
    return [data[name] for name in names]


def rocm_smi_driver(path: Path) -> str:
    """``system."Driver version"``: the amdgpu driver version (not ROCm's)."""
    return str(load(path)["system"]["Driver version"])


def _first(card: dict[str, str], *keys: str) -> str | None:
    for key in keys:
        value = card.get(key)
        if value not in (None, "", "N/A"):
            return value
    return None


def card_name(card: dict[str, str]) -> str | None:
    """The product name rocm-smi shows; old versions print the vendor id (``0x1002``) instead."""
    name = _first(card, "Device Name", "Card Series", "Card series")
    return None if name is None or name.startswith("0x") else name


def card_device_id(card: dict[str, str]) -> str:
    """PCI device id: ``Device ID`` since ROCm 6, ``GPU ID`` before."""
    value = _first(card, "Device ID", "GPU ID")
    assert value is not None
    return value.lower()


def card_mem_busy(card: dict[str, str]) -> float | None:
    """Memory controller activity, under its ROCm 6 and ROCm 5 names."""
    return number(_first(card, "GPU Memory Read/Write Activity (%)", "GPU memory use (%)"))


def card_temperature_c(card: dict[str, str]) -> float | None:
    """Edge temperature, else junction: the sensor choice envsnap makes."""
    return number(_first(card, "Temperature (Sensor edge) (C)", "Temperature (Sensor junction) (C)"))


def bus_id(text: str) -> str:
    """rocm-smi's ``0000:a3:00.0`` / ``0000:A3:00.0`` in the snapshot's upper-case form."""
    domain, bus, rest = text.split(":")
    return f"{domain.upper()}:{bus.upper()}:{rest.upper()}"


def rocm_smi_devices(path: Path, gfx_target: str | None = None) -> tuple[AmdDevice, ...]:
    """Static facts of every card of a rocm-smi capture."""
    devices = []
    for index, card in enumerate(rocm_smi_cards(path)):
        total = number(card.get("VRAM Total Memory (B)"))
        devices.append(
            AmdDevice(
                index=index,
                name=card_name(card),
                gfx_target=gfx_target,
                pci_bus_id=bus_id(card["PCI Bus"]),
                device_id=card_device_id(card),
                memory_total_bytes=None if total is None else int(total),
                vbios_version=card.get("VBIOS version"),
            )
        )
    return tuple(devices)


def rocm_smi_samples(path: Path, *, first_index: int = 0) -> tuple[DeviceSample, ...]:
    """One DeviceSample per card of a rocm-smi capture."""
    samples = []
    for offset, card in enumerate(rocm_smi_cards(path)):
        total, used = (
            number(card.get("VRAM Total Memory (B)")),
            number(card.get("VRAM Total Used Memory (B)")),
        )
        samples.append(
            DeviceSample(
                vendor="amd",
                index=first_index + offset,
                name=card_name(card),
                pci_bus_id=bus_id(card["PCI Bus"]),
                memory_used_bytes=None if used is None else int(used),
                memory_free_bytes=None if total is None or used is None else int(total - used),
                memory_total_bytes=None if total is None else int(total),
                gpu_util_percent=number(card.get("GPU use (%)")),
                memory_util_percent=card_mem_busy(card),
                temperature_c=card_temperature_c(card),
                power_draw_watts=number(card.get("Average Graphics Package Power (W)")),
                power_limit_watts=number(card.get("Max Graphics Package Power (W)")),
            )
        )
    return tuple(samples)


def mi250_samples() -> tuple[DeviceSample, ...]:
    """A two-GCD MI250 host: the ROCm 6 capture's GCD as device 0, the ROCm 5 capture's as device 1.

    The two GCDs come from two different boards (different serials), each recorded whole; no value
    is made up, but the pairing is ours.
    """
    return rocm_smi_samples(MI250_ROCM6) + rocm_smi_samples(MI250_ROCM5, first_index=1)


def amd_smi_static(path: Path = MI210_STATIC) -> list[dict[str, Any]]:
    """The ``gpu_data`` list of an ``amd-smi static --json`` capture."""
    data = load(path)
    return list(data["gpu_data"] if isinstance(data, dict) else data)


def amd_smi_metric(path: Path = RADEON_METRIC) -> list[dict[str, Any]]:
    """The GPU list of an ``amd-smi metric --json`` capture (a bare list since amd-smi 6.3)."""
    data = load(path)
    return list(data["gpu_data"] if isinstance(data, dict) else data)


def _edge_else_hotspot(temps: dict[str, Any]) -> float | None:
    edge = number(temps.get("edge"))
    return number(temps.get("hotspot")) if edge is None else edge


def rocm_smi_pids(path: Path) -> list[tuple[int, str, int]]:
    """``system.PIDnnn`` entries (``--showpids``): pid, process name, VRAM bytes.

    rocm-smi writes each as ``"name, GPUs in use, VRAM used, SDMA used, CU occupancy"``.
    """
    found = []
    for key, value in load(path).get("system", {}).items():
        if re.fullmatch(r"PID\d+", key):
            name, _gpus, vram, *_ = (part.strip() for part in str(value).split(","))
            found.append((int(key[3:]), name, int(vram)))
    return found


def amd_smi_metric_samples(path: Path = RADEON_METRIC) -> tuple[DeviceSample, ...]:
    """One DeviceSample per GPU of an ``amd-smi metric --json`` capture (memory at MiB resolution)."""
    samples = []
    for gpu in amd_smi_metric(path):
        mem = gpu["mem_usage"]
        total, used = number(mem["total_vram"]), number(mem["used_vram"])
        temps = gpu["temperature"]
        samples.append(
            DeviceSample(
                vendor="amd",
                index=int(gpu["gpu"]),
                memory_used_bytes=None if used is None else int(used) * MIB,
                memory_free_bytes=None if total is None or used is None else int(total - used) * MIB,
                memory_total_bytes=None if total is None else int(total) * MIB,
                gpu_util_percent=number(gpu["usage"]["gfx_activity"]),
                memory_util_percent=number(gpu["usage"]["umc_activity"]),
                temperature_c=_edge_else_hotspot(temps),
                power_draw_watts=number(gpu["power"]["socket_power"]),
            )
        )
    return tuple(samples)
