"""A fake ``amdsmi`` module that serves recorded AMD hosts through amdsmi's Python API.

Every function the probe calls answers the way amdsmi 6.x/7.x's ``amdsmi_interface.py`` does:
dicts with the same keys, ``"N/A"`` strings for unsupported struct members, hex strings for ids,
bytes for memory totals and usage, MB for ``vram_size``, °C for temperatures, W for socket power and
µW for power caps. A value the recording lacks raises ``AmdSmiLibraryException`` with
``AMDSMI_STATUS_NOT_SUPPORTED`` (2), as the library does for an unsupported field. Status codes and
the exception hierarchy mirror ``amdsmi_exception.py``.

Hosts, from the captures in tests/data/amd (parsed by ``amd_fixtures``):
- ``mi210_host()``: ``amd-smi static --json`` of an MI210 (static facts only: no live metrics, no
  BDF, as the capture was trimmed upstream);
- ``mi250_host()``: two MI250 GCDs from ``rocm-smi -a --json`` captures (no VRAM size recorded);
- ``radeon_host()``: ``amd-smi metric --json`` of a 48 GB Radeon (live metrics only);
- ``mi100x6_host()``: six MI100s from a rocm-smi capture, with its one KFD process.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from envsnap.probes.amd.gfx import normalize_gfx_name
from envsnap.probes.amd.smi import AmdSmiSession
from tests.fakes import amd_fixtures as fx

AMDSMI_STATUS_NOT_SUPPORTED = 2
AMDSMI_STATUS_DRM_ERROR = 6
AMDSMI_STATUS_NO_PERM = 10
AMDSMI_STATUS_INIT_ERROR = 18


class AmdSmiException(Exception):
    """Base of amdsmi's exceptions."""


class AmdSmiLibraryException(AmdSmiException):
    """An ``amdsmi_status_t`` other than success."""

    def __init__(self, err_code: int) -> None:
        super().__init__(err_code)
        self.err_code = abs(err_code)

    def __str__(self) -> str:
        names = {2: "AMDSMI_STATUS_NOT_SUPPORTED - Feature not supported", 18: "AMDSMI_STATUS_INIT_ERROR"}
        return f"Error code:\n\t{self.err_code} | {names.get(self.err_code, 'AMDSMI_STATUS_UNKNOWN_ERROR')}"


class AmdSmiTemperatureType(enum.IntEnum):
    """Sensors (amdsmi_temperature_type_t)."""

    EDGE = 0
    HOTSPOT = 1
    JUNCTION = 1
    VRAM = 2


class AmdSmiTemperatureMetric(enum.IntEnum):
    """Temperature readings (amdsmi_temperature_metric_t)."""

    CURRENT = 0


class AmdSmiMemoryType(enum.IntEnum):
    """Memory pools (amdsmi_memory_type_t)."""

    VRAM = 0
    VIS_VRAM = 1
    GTT = 2


@dataclass
class FakeGpu:
    """What one recorded GPU answers; None means "not supported" (the call raises)."""

    bdf: str | None = None
    asic: dict[str, Any] | None = None
    uuid: str | None = None
    memory_total_bytes: int | None = None
    vram_size_mb: int | None = None
    memory_used_bytes: int | None = None
    driver_version: str | None = None
    vbios: dict[str, str] | None = None
    board: dict[str, str] | None = None
    activity: dict[str, Any] | None = None
    temperatures_c: dict[AmdSmiTemperatureType, int] = field(default_factory=dict)
    power: dict[str, Any] | None = None
    power_cap_uw: int | None = None
    processes: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class Handle:
    """An opaque processor handle."""

    index: int


def _need(value: Any) -> Any:
    if value is None:
        raise AmdSmiLibraryException(AMDSMI_STATUS_NOT_SUPPORTED)
    return value


class FakeAmdSmi:
    """Module-like object: pass it where ``import amdsmi`` would be."""

    AmdSmiException = AmdSmiException
    AmdSmiLibraryException = AmdSmiLibraryException
    AmdSmiTemperatureType = AmdSmiTemperatureType
    AmdSmiTemperatureMetric = AmdSmiTemperatureMetric
    AmdSmiMemoryType = AmdSmiMemoryType

    def __init__(self, gpus: Sequence[FakeGpu], *, init_error: int | None = None) -> None:
        self.gpus = list(gpus)
        self.init_error = init_error
        self.init_calls = 0
        self.shutdown_calls = 0

    def _gpu(self, handle: Handle) -> FakeGpu:
        return self.gpus[handle.index]

    def amdsmi_init(self, flag: int = 2) -> None:
        self.init_calls += 1
        if self.init_error is not None:
            raise AmdSmiLibraryException(self.init_error)

    def amdsmi_shut_down(self) -> None:
        self.shutdown_calls += 1

    def amdsmi_get_processor_handles(self) -> list[Handle]:
        return [Handle(i) for i in range(len(self.gpus))]

    def amdsmi_get_gpu_device_bdf(self, handle: Handle) -> str:
        return str(_need(self._gpu(handle).bdf))

    def amdsmi_get_gpu_device_uuid(self, handle: Handle) -> str:
        return str(_need(self._gpu(handle).uuid))

    def amdsmi_get_gpu_asic_info(self, handle: Handle) -> dict[str, Any]:
        return dict(_need(self._gpu(handle).asic))

    def amdsmi_get_gpu_memory_total(self, handle: Handle, mem_type: int) -> int:
        return int(_need(self._gpu(handle).memory_total_bytes if mem_type == AmdSmiMemoryType.VRAM else None))

    def amdsmi_get_gpu_memory_usage(self, handle: Handle, mem_type: int) -> int:
        return int(_need(self._gpu(handle).memory_used_bytes if mem_type == AmdSmiMemoryType.VRAM else None))

    def amdsmi_get_gpu_vram_info(self, handle: Handle) -> dict[str, Any]:
        size = _need(self._gpu(handle).vram_size_mb)
        return {"vram_type": 0, "vram_vendor": "N/A", "vram_size": size, "vram_bit_width": "N/A"}

    def amdsmi_get_gpu_driver_info(self, handle: Handle) -> dict[str, str]:
        version = _need(self._gpu(handle).driver_version)
        return {"driver_name": "amdgpu", "driver_version": version, "driver_date": "N/A"}

    def amdsmi_get_gpu_vbios_info(self, handle: Handle) -> dict[str, str]:
        return dict(_need(self._gpu(handle).vbios))

    def amdsmi_get_gpu_board_info(self, handle: Handle) -> dict[str, str]:
        return dict(_need(self._gpu(handle).board))

    def amdsmi_get_gpu_activity(self, handle: Handle) -> dict[str, Any]:
        return dict(_need(self._gpu(handle).activity))

    def amdsmi_get_temp_metric(self, handle: Handle, sensor: int, metric: int) -> int:
        return int(_need(self._gpu(handle).temperatures_c.get(AmdSmiTemperatureType(sensor))))

    def amdsmi_get_power_info(self, handle: Handle) -> dict[str, Any]:
        return dict(_need(self._gpu(handle).power))

    def amdsmi_get_power_cap_info(self, handle: Handle) -> dict[str, Any]:
        cap = _need(self._gpu(handle).power_cap_uw)
        return {
            "power_cap": cap,
            "default_power_cap": cap,
            "dpm_cap": "N/A",
            "min_power_cap": 0,
            "max_power_cap": cap,
        }

    def amdsmi_get_gpu_process_list(self, handle: Handle) -> list[dict[str, Any]]:
        return list(_need(self._gpu(handle).processes))


def session(fake: FakeAmdSmi) -> AmdSmiSession:
    """An amdsmi session over ``fake`` (a fresh one per test: the process default is never touched)."""
    loader: Callable[[], Any] = lambda: fake  # noqa: E731 - the session takes a zero-argument loader
    return AmdSmiSession(loader)


def _na(value: str | None) -> str:
    return "N/A" if value is None else value


def mi210_gpu() -> FakeGpu:
    """The MI210 of the ``amd-smi static --json`` capture."""
    gpu = fx.amd_smi_static(fx.MI210_STATIC)[0]
    asic = gpu["asic"]
    return FakeGpu(
        asic={
            "market_name": asic["market_name"],
            "vendor_id": asic["vendor_id"],
            "vendor_name": asic["vendor_name"],
            "subvendor_id": asic["subvendor_id"],
            "device_id": asic["device_id"],
            "rev_id": asic["rev_id"],
            "asic_serial": "N/A",
            "oam_id": asic["oam_id"],
            "num_compute_units": asic["num_compute_units"],
            "target_graphics_version": asic["target_graphics_version"],
            "subsystem_id": asic["subsystem_id"],
        },
        vram_size_mb=int(gpu["vram"]["size"]["value"]),
        driver_version=gpu["driver"]["version"],
        vbios={"name": gpu["vbios"]["name"], "build_date": "", "part_number": "", "version": ""},
        board=dict(gpu["board"]),
        power_cap_uw=int(gpu["limit"]["socket_power"]["value"]) * 1_000_000,
    )


def _rocm_smi_gpu(card: dict[str, str], driver: str, gfx: str | None) -> FakeGpu:
    temps = {
        AmdSmiTemperatureType.EDGE: card.get("Temperature (Sensor edge) (C)"),
        AmdSmiTemperatureType.HOTSPOT: card.get("Temperature (Sensor junction) (C)"),
        AmdSmiTemperatureType.VRAM: card.get("Temperature (Sensor memory) (C)"),
    }
    cap = fx.number(card.get("Max Graphics Package Power (W)"))
    total, used = (
        fx.number(card.get("VRAM Total Memory (B)")),
        fx.number(card.get("VRAM Total Used Memory (B)")),
    )
    return FakeGpu(
        bdf=card["PCI Bus"].lower(),
        memory_total_bytes=None if total is None else int(total),
        memory_used_bytes=None if used is None else int(used),
        asic={
            "market_name": _na(fx.card_name(card)),
            "vendor_id": "0x1002",
            "device_id": fx.card_device_id(card),
            "num_compute_units": "N/A",
            "target_graphics_version": _na(gfx),
        },
        driver_version=driver,
        vbios={"name": "", "build_date": "", "part_number": card["VBIOS version"], "version": ""},
        board={"product_serial": card.get("Serial Number", "N/A"), "product_name": _na(fx.card_name(card))},
        activity={
            "gfx_activity": int(fx.number(card["GPU use (%)"]) or 0),
            "umc_activity": int(fx.card_mem_busy(card) or 0),
            "mm_activity": "N/A",
        },
        temperatures_c={k: int(float(v)) for k, v in temps.items() if v is not None},
        power={
            "socket_power": "N/A",
            "current_socket_power": "N/A",
            "average_socket_power": int(fx.number(card["Average Graphics Package Power (W)"]) or 0),
            "power_limit": "N/A",
        },
        power_cap_uw=None if cap is None else int(cap) * 1_000_000,
        processes=[],
    )


def mi250_gpus() -> list[FakeGpu]:
    """Two MI250 GCDs (the ROCm 6 capture's, then the ROCm 5 capture's), gfx from the ROCm 6 capture."""
    gfx = normalize_gfx_name(fx.rocm_smi_cards(fx.MI250_ROCM6)[0]["GFX Version"])
    return [
        _rocm_smi_gpu(card, fx.rocm_smi_driver(path), gfx)
        for path in (fx.MI250_ROCM6, fx.MI250_ROCM5)
        for card in fx.rocm_smi_cards(path)
    ]


def radeon_gpu() -> FakeGpu:
    """The Radeon of the ``amd-smi metric --json`` capture (memory in MiB, as amd-smi printed it)."""
    gpu = fx.amd_smi_metric(fx.RADEON_METRIC)[0]
    mem, temps, usage = gpu["mem_usage"], gpu["temperature"], gpu["usage"]
    return FakeGpu(
        memory_total_bytes=int(mem["total_vram"]["value"]) * fx.MIB,
        memory_used_bytes=int(mem["used_vram"]["value"]) * fx.MIB,
        activity={k: usage[k]["value"] for k in ("gfx_activity", "umc_activity", "mm_activity")},
        temperatures_c={
            AmdSmiTemperatureType.EDGE: temps["edge"]["value"],
            AmdSmiTemperatureType.HOTSPOT: temps["hotspot"]["value"],
            AmdSmiTemperatureType.VRAM: temps["mem"]["value"],
        },
        power={"socket_power": gpu["power"]["socket_power"]["value"], "current_socket_power": "N/A"},
    )


def mi210_host() -> FakeAmdSmi:
    """An MI210 host."""
    return FakeAmdSmi([mi210_gpu()])


def mi250_host() -> FakeAmdSmi:
    """A two-GCD MI250 host."""
    return FakeAmdSmi(mi250_gpus())


def radeon_host() -> FakeAmdSmi:
    """A host with the 48 GB Radeon of the metric capture."""
    return FakeAmdSmi([radeon_gpu()])


def mi100x6_host() -> FakeAmdSmi:
    """Six MI100s (the ROCm 5.7.1 capture), the capture's one KFD process listed on GPU 0.

    rocm-smi reports processes host-wide, not per GPU: putting it on GPU 0 is our choice. The capture
    has no gfx version, so the GPUs answer "N/A" for it.
    """
    path = fx.MI100X6
    gpus = [_rocm_smi_gpu(card, fx.rocm_smi_driver(path), None) for card in fx.rocm_smi_cards(path)]
    gpus[0].processes = [
        {
            "name": name,
            "pid": pid,
            "mem": vram,
            "engine_usage": {"gfx": 0, "enc": 0},
            "memory_usage": {"gtt_mem": 0, "cpu_mem": 0, "vram_mem": vram},
            "cu_occupancy": "N/A",
        }
        for pid, name, vram in fx.rocm_smi_pids(path)
    ]
    return FakeAmdSmi(gpus)
