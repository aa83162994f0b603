"""A fake ``pynvml`` module that replays a recorded ``nvidia-smi -q -x`` document through NVML's API.

The document is read with envsnap's own parser, then every NVML function the probe calls is
served from it: a value the recording has comes back as nvidia-ml-py would return it (ints,
strs, ``[current, pending]`` lists, struct-like objects, milliwatts), and a value it lacks
raises ``NVMLError_NotSupported`` as a real driver does. Constants and error classes are the
real nvidia-ml-py ones, so the probe catches exactly what it would catch on a GPU host.

Named scenarios reproduce the failures the probe must turn into data; see ``SCENARIOS``.
Compute capability is not in nvidia-smi's XML: it comes from NVIDIA's published table
(https://developer.nvidia.com/cuda-gpus, via ../shared/knowledge/compat-rules.md B2.1) for the
fixture GPUs; other GPUs answer NotSupported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pynvml as _real

from envsnap.probes.nvidia import smi_xml as nvidia_smi_xml
from envsnap.probes.nvidia.names import ARCHITECTURES, COMPUTE_MODES, DRIVER_MODELS, THROTTLE_REASONS
from envsnap.snapshot.model import DeviceSample, NvidiaDevice

NVIDIA_DATA = Path(__file__).resolve().parents[1] / "data" / "nvidia"
"""Copied fixtures: nvidia-smi XML of real GPUs, the H100 capture, /proc trees (see SOURCES.md)."""


def fixture_text(name: str) -> str:
    """The text of a file in tests/data/nvidia/."""
    return (NVIDIA_DATA / name).read_text(encoding="utf-8")


COMPUTE_CAPABILITY: dict[str, tuple[int, int]] = {
    "Tesla V100S-PCIE-32GB": (7, 0),
    "Tesla V100-PCIE-32GB": (7, 0),
    "NVIDIA A100-SXM4-40GB": (8, 0),
    "NVIDIA A100-SXM4-80GB": (8, 0),
    "NVIDIA A10G": (8, 6),
    "Tesla T4": (7, 5),
    "Tesla P100-PCIE-16GB": (6, 0),
    "Quadro P400": (6, 1),
    "Quadro P2000": (6, 1),
    "NVIDIA GeForce GTX 1050": (6, 1),
    "NVIDIA GeForce RTX 2080": (7, 5),
    "NVIDIA GeForce RTX 3060": (8, 6),
    "NVIDIA GeForce RTX 3060 Laptop GPU": (8, 6),
    "NVIDIA GeForce RTX 3080": (8, 6),
    "NVIDIA GeForce RTX 3090": (8, 6),
    "NVIDIA GeForce RTX 4090": (8, 9),
    "NVIDIA RTX 4000 SFF Ada Generation": (8, 9),
}
"""CUDA compute capability by product name (NVIDIA's "CUDA GPU Compute Capability" table)."""

NEWER_THAN_OLD_DRIVERS = (
    "nvmlSystemGetCudaDriverVersion_v2",
    "nvmlDeviceGetArchitecture",
    "nvmlDeviceGetCurrentClocksEventReasons",
    "nvmlDeviceGetMemoryInfo_v2",
    "nvmlDeviceGetRemappedRows",
    "nvmlDeviceGetComputeRunningProcesses_v3",
    "nvmlDeviceGetGraphicsRunningProcesses_v3",
)
"""Symbols an old driver's libnvidia-ml lacks (they arrived with later branches); nvidia-ml-py
raises FunctionNotFound for each, which the ``function_not_found`` scenario reproduces."""

SCENARIOS = (
    "basic",
    "library_missing",
    "driver_library_mismatch",
    "function_not_found",
    "power_not_supported",
    "gpu_lost",
    "no_permission",
)

_INIT_FAILURES: dict[str, type[Exception]] = {
    "library_missing": _real.NVMLError_LibraryNotFound,
    "driver_library_mismatch": _real.NVMLError_LibRmVersionMismatch,
    "no_permission": _real.NVMLError_NoPermission,
}
_MIG_SLOTS = 7
"""``nvmlDeviceGetMaxMigDeviceCount`` on an A100/H100: seven slots, the unused ones NOT_FOUND."""


@dataclass(frozen=True)
class FakeHandle:
    """An ``nvmlDevice_t`` for a whole GPU."""

    index: int


@dataclass(frozen=True)
class FakeMigHandle:
    """An ``nvmlDevice_t`` for a MIG device: the parent GPU and the MIG slot."""

    index: int
    slot: int


def _unsupported() -> Exception:
    error: Exception = _real.NVMLError_NotSupported()
    return error


def _present(value: Any) -> Any:
    """The value, or NotSupported when the recording doesn't have it."""
    if value is None:
        raise _unsupported()
    return value


def _bitmask(names: tuple[str, ...]) -> int:
    bits = {name: bit for bit, name in THROTTLE_REASONS.items()}
    return sum(bits[name] for name in names)


def _reverse(table: Mapping[int, str], name: str | None) -> int:
    for code, text in table.items():
        if text == name:
            return code
    raise _unsupported()


class FakeNvml:
    """A stand-in for the ``pynvml`` module, built from one nvidia-smi XML document.

    Attributes:
        calls: how many times each NVML function was called (``nvmlInit`` included).
    """

    def __init__(
        self,
        xml_text: str,
        scenario: str = "basic",
        *,
        lost_index: int | None = None,
        nvml_version: str | None = None,
    ) -> None:
        """Args:
        xml_text: an ``nvidia-smi -q -x`` document.
        scenario: one of ``SCENARIOS``.
        lost_index: for ``gpu_lost``, the GPU that is lost (default: the last one).
        nvml_version: what ``nvmlSystemGetNVMLVersion`` answers; NotSupported when None,
            because nvidia-smi's XML doesn't record it.
        """
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}; expected one of {SCENARIOS}")
        for name in dir(_real):
            if name.startswith(("NVML_", "NVMLError", "nvmlMemory_v2")):
                setattr(self, name, getattr(_real, name))
        report = nvidia_smi_xml.parse(xml_text)
        self.info = report.info
        self.devices: tuple[NvidiaDevice, ...] = report.info.devices or ()
        self.samples: tuple[DeviceSample, ...] = report.samples
        self.scenario = scenario
        self.lost_index = (
            (len(self.devices) - 1 if lost_index is None else lost_index) if scenario == "gpu_lost" else None
        )
        self.nvml_version = nvml_version
        self.calls: Counter[str] = Counter()

    # ------------------------------------------------------------------ plumbing

    def _enter(self, function: str, handle: FakeHandle | FakeMigHandle | None = None) -> None:
        """Count the call and raise what the scenario says this call raises."""
        self.calls[function] += 1
        if self.scenario == "function_not_found" and function in NEWER_THAN_OLD_DRIVERS:
            raise _real.NVMLError_FunctionNotFound()
        if self.scenario == "power_not_supported" and function in (
            "nvmlDeviceGetPowerUsage",
            "nvmlDeviceGetEnforcedPowerLimit",
        ):
            raise _unsupported()
        if handle is not None and handle.index == self.lost_index:
            raise _real.NVMLError_GpuIsLost()

    def _device(self, handle: FakeHandle | FakeMigHandle) -> NvidiaDevice:
        return self.devices[handle.index]

    def _sample(self, handle: FakeHandle | FakeMigHandle) -> DeviceSample:
        return self.samples[handle.index]

    # ------------------------------------------------------------------ system

    def nvmlInit(self) -> None:
        self._enter("nvmlInit")
        failure = _INIT_FAILURES.get(self.scenario)
        if failure is not None:
            raise failure()

    def nvmlShutdown(self) -> None:
        self._enter("nvmlShutdown")

    def nvmlSystemGetDriverVersion(self) -> str:
        self._enter("nvmlSystemGetDriverVersion")
        return str(_present(self.info.driver_version))

    def nvmlSystemGetNVMLVersion(self) -> str:
        self._enter("nvmlSystemGetNVMLVersion")
        return str(_present(self.nvml_version))

    def _cuda(self) -> int:
        major, minor = str(_present(self.info.cuda_driver_version)).split(".")
        return int(major) * 1000 + int(minor) * 10

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        self._enter("nvmlSystemGetCudaDriverVersion")
        return self._cuda()

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        self._enter("nvmlSystemGetCudaDriverVersion_v2")
        return self._cuda()

    def nvmlSystemGetProcessName(self, pid: int) -> str:
        self._enter("nvmlSystemGetProcessName")
        for sample in self.samples:
            for process in sample.processes or ():
                if process.pid == pid and process.name:
                    return process.name
        raise _real.NVMLError_NotFound()

    # ------------------------------------------------------------------ handles

    def nvmlDeviceGetCount(self) -> int:
        self._enter("nvmlDeviceGetCount")
        return len(self.devices)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> FakeHandle:
        self._enter("nvmlDeviceGetHandleByIndex")
        if not 0 <= index < len(self.devices):
            raise _real.NVMLError_InvalidArgument()
        return FakeHandle(index)

    # ------------------------------------------------------------------ static facts

    def nvmlDeviceGetName(self, handle: FakeHandle | FakeMigHandle) -> str:
        self._enter("nvmlDeviceGetName", handle)
        if isinstance(handle, FakeMigHandle):
            raise _unsupported()  # the XML has no MIG profile names
        return str(_present(self._device(handle).name))

    def nvmlDeviceGetUUID(self, handle: FakeHandle | FakeMigHandle) -> str:
        self._enter("nvmlDeviceGetUUID", handle)
        if isinstance(handle, FakeMigHandle):
            raise _unsupported()  # nor MIG UUIDs
        return str(_present(self._device(handle).uuid))

    def nvmlDeviceGetSerial(self, handle: FakeHandle) -> str:
        self._enter("nvmlDeviceGetSerial", handle)
        return str(_present(self._device(handle).serial))

    def nvmlDeviceGetPciInfo(self, handle: FakeHandle) -> SimpleNamespace:
        self._enter("nvmlDeviceGetPciInfo", handle)
        bus_id = str(_present(self._device(handle).pci_bus_id))
        # NVML spells the domain with eight digits: 00000000:3B:00.0; struct fields are bytes.
        return SimpleNamespace(busId=f"0000{bus_id}".encode())

    def nvmlDeviceGetCudaComputeCapability(self, handle: FakeHandle) -> tuple[int, int]:
        self._enter("nvmlDeviceGetCudaComputeCapability", handle)
        major, minor = _present(COMPUTE_CAPABILITY.get(self._device(handle).name or ""))
        return int(major), int(minor)

    def nvmlDeviceGetArchitecture(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetArchitecture", handle)
        return _reverse(ARCHITECTURES, self._device(handle).architecture)

    def nvmlDeviceGetMemoryInfo(
        self, handle: FakeHandle | FakeMigHandle, version: int | None = None
    ) -> SimpleNamespace:
        self._enter("nvmlDeviceGetMemoryInfo_v2" if version else "nvmlDeviceGetMemoryInfo", handle)
        if isinstance(handle, FakeMigHandle):
            instances = self._device(handle).mig_instances or ()
            return SimpleNamespace(total=_present(instances[handle.slot].memory_total_bytes))
        sample = self._sample(handle)
        total = int(_present(sample.memory_total_bytes))
        free = int(_present(sample.memory_free_bytes))
        used = int(_present(sample.memory_used_bytes))
        if version:
            return SimpleNamespace(
                version=version, total=total, reserved=total - used - free, free=free, used=used
            )
        return SimpleNamespace(total=total, free=free, used=total - free)  # v1 counts reserved as used

    def nvmlDeviceGetBAR1MemoryInfo(self, handle: FakeHandle) -> SimpleNamespace:
        self._enter("nvmlDeviceGetBAR1MemoryInfo", handle)
        return SimpleNamespace(bar1Total=_present(self._device(handle).bar1_total_bytes))

    def nvmlDeviceGetEnforcedPowerLimit(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetEnforcedPowerLimit", handle)
        return round(float(_present(self._device(handle).power_limit_watts)) * 1000)

    def nvmlDeviceGetMaxClockInfo(self, handle: FakeHandle, clock: int) -> int:
        self._enter("nvmlDeviceGetMaxClockInfo", handle)
        device = self._device(handle)
        values = {
            _real.NVML_CLOCK_GRAPHICS: device.max_graphics_clock_mhz,
            _real.NVML_CLOCK_SM: device.max_sm_clock_mhz,
            _real.NVML_CLOCK_MEM: device.max_memory_clock_mhz,
        }
        return int(_present(values.get(clock)))

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetMaxPcieLinkGeneration", handle)
        return int(_present(self._device(handle).pcie_link_gen_max))

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetMaxPcieLinkWidth", handle)
        return int(_present(self._device(handle).pcie_link_width_max))

    def nvmlDeviceGetEccMode(self, handle: FakeHandle) -> list[int]:
        self._enter("nvmlDeviceGetEccMode", handle)
        state = int(bool(_present(self._device(handle).ecc_enabled)))
        return [state, state]

    def nvmlDeviceGetPersistenceMode(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetPersistenceMode", handle)
        return int(bool(_present(self._device(handle).persistence_mode)))

    def nvmlDeviceGetComputeMode(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetComputeMode", handle)
        return _reverse(COMPUTE_MODES, self._device(handle).compute_mode)

    def nvmlDeviceGetVbiosVersion(self, handle: FakeHandle) -> str:
        self._enter("nvmlDeviceGetVbiosVersion", handle)
        return str(_present(self._device(handle).vbios_version))

    def nvmlDeviceGetBoardPartNumber(self, handle: FakeHandle) -> str:
        self._enter("nvmlDeviceGetBoardPartNumber", handle)
        return str(_present(self._device(handle).board_part_number))

    def nvmlDeviceGetDriverModel(self, handle: FakeHandle) -> list[int]:
        self._enter("nvmlDeviceGetDriverModel", handle)
        model = _reverse(DRIVER_MODELS, self._device(handle).driver_model)
        return [model, model]

    # ------------------------------------------------------------------ MIG

    def nvmlDeviceGetMigMode(self, handle: FakeHandle) -> list[int]:
        self._enter("nvmlDeviceGetMigMode", handle)
        state = int(bool(_present(self._device(handle).mig_enabled)))
        return [state, state]

    def nvmlDeviceGetMaxMigDeviceCount(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetMaxMigDeviceCount", handle)
        _present(self._device(handle).mig_enabled)
        return _MIG_SLOTS

    def nvmlDeviceGetMigDeviceHandleByIndex(self, handle: FakeHandle, slot: int) -> FakeMigHandle:
        self._enter("nvmlDeviceGetMigDeviceHandleByIndex", handle)
        if slot >= len(self._device(handle).mig_instances or ()):
            raise _real.NVMLError_NotFound()
        return FakeMigHandle(handle.index, slot)

    def nvmlDeviceGetGpuInstanceId(self, handle: FakeMigHandle) -> int:
        self._enter("nvmlDeviceGetGpuInstanceId", handle)
        return int(_present((self._device(handle).mig_instances or ())[handle.slot].gpu_instance_id))

    def nvmlDeviceGetComputeInstanceId(self, handle: FakeMigHandle) -> int:
        self._enter("nvmlDeviceGetComputeInstanceId", handle)
        return int(_present((self._device(handle).mig_instances or ())[handle.slot].compute_instance_id))

    # ------------------------------------------------------------------ telemetry

    def nvmlDeviceGetUtilizationRates(self, handle: FakeHandle) -> SimpleNamespace:
        self._enter("nvmlDeviceGetUtilizationRates", handle)
        sample = self._sample(handle)
        gpu, memory = sample.gpu_util_percent, sample.memory_util_percent
        if gpu is None or memory is None:
            raise _unsupported()
        return SimpleNamespace(gpu=int(gpu), memory=int(memory))

    def nvmlDeviceGetTemperature(self, handle: FakeHandle, sensor: int) -> int:
        self._enter("nvmlDeviceGetTemperature", handle)
        if sensor != _real.NVML_TEMPERATURE_GPU:
            raise _real.NVMLError_InvalidArgument()
        return int(_present(self._sample(handle).temperature_c))

    def nvmlDeviceGetPowerUsage(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetPowerUsage", handle)
        return round(float(_present(self._sample(handle).power_draw_watts)) * 1000)

    def nvmlDeviceGetClockInfo(self, handle: FakeHandle, clock: int) -> int:
        self._enter("nvmlDeviceGetClockInfo", handle)
        sample = self._sample(handle)
        values = {
            _real.NVML_CLOCK_GRAPHICS: sample.graphics_clock_mhz,
            _real.NVML_CLOCK_SM: sample.sm_clock_mhz,
            _real.NVML_CLOCK_MEM: sample.memory_clock_mhz,
        }
        return int(_present(values.get(clock)))

    def nvmlDeviceGetFanSpeed(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetFanSpeed", handle)
        return int(_present(self._sample(handle).fan_percent))

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetCurrPcieLinkGeneration", handle)
        return int(_present(self._sample(handle).pcie_link_gen))

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetCurrPcieLinkWidth", handle)
        return int(_present(self._sample(handle).pcie_link_width))

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetCurrentClocksEventReasons", handle)
        return _bitmask(_present(self._sample(handle).throttle_reasons))

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetCurrentClocksThrottleReasons", handle)
        return _bitmask(_present(self._sample(handle).throttle_reasons))

    def nvmlDeviceGetTotalEccErrors(self, handle: FakeHandle, error_type: int, counter: int) -> int:
        self._enter("nvmlDeviceGetTotalEccErrors", handle)
        if counter != _real.NVML_VOLATILE_ECC:
            raise _unsupported()  # the probe reads volatile counters only
        sample = self._sample(handle)
        if error_type == _real.NVML_MEMORY_ERROR_TYPE_CORRECTED:
            return int(_present(sample.ecc_errors_corrected))
        return int(_present(sample.ecc_errors_uncorrected))

    def nvmlDeviceGetRetiredPagesPendingStatus(self, handle: FakeHandle) -> int:
        self._enter("nvmlDeviceGetRetiredPagesPendingStatus", handle)
        return int(bool(_present(self._sample(handle).retired_pages_pending)))

    def nvmlDeviceGetRemappedRows(self, handle: FakeHandle) -> tuple[int | None, int | None, int, int | None]:
        self._enter("nvmlDeviceGetRemappedRows", handle)
        # Only the pending flag is recorded; the counters stay unknown rather than invented.
        return (None, None, int(bool(_present(self._sample(handle).remapped_rows_pending))), None)

    def _processes(self, handle: FakeHandle, kind: str) -> list[SimpleNamespace]:
        processes = self._sample(handle).processes
        if processes is None:
            raise _unsupported()
        return [
            SimpleNamespace(pid=p.pid, usedGpuMemory=p.used_memory_bytes) for p in processes if p.kind == kind
        ]

    def nvmlDeviceGetComputeRunningProcesses_v3(self, handle: FakeHandle) -> list[SimpleNamespace]:
        self._enter("nvmlDeviceGetComputeRunningProcesses_v3", handle)
        return self._processes(handle, "compute")

    def nvmlDeviceGetComputeRunningProcesses_v2(self, handle: FakeHandle) -> list[SimpleNamespace]:
        self._enter("nvmlDeviceGetComputeRunningProcesses_v2", handle)
        return self._processes(handle, "compute")

    def nvmlDeviceGetGraphicsRunningProcesses_v3(self, handle: FakeHandle) -> list[SimpleNamespace]:
        self._enter("nvmlDeviceGetGraphicsRunningProcesses_v3", handle)
        return self._processes(handle, "graphics")

    def nvmlDeviceGetGraphicsRunningProcesses_v2(self, handle: FakeHandle) -> list[SimpleNamespace]:
        self._enter("nvmlDeviceGetGraphicsRunningProcesses_v2", handle)
        return self._processes(handle, "graphics")
