"""What envsnap reads from NVML for one GPU, and how each answer becomes a model field.

Every function here takes a ``Query``: a callable that runs one NVML device function on the
device's handle and returns its value, or None for any answer that is not a value (not
supported, function missing in an old driver, no permission). nvidia.py builds that callable;
it is the only module that knows NVML's error classes. Each reader's docstring names the
``nvidia-smi`` command that shows the same values, for checking a snapshot by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol

from envsnap.probes.nvidia.names import (
    ARCHITECTURES,
    COMPUTE_MODES,
    DRIVER_MODELS,
    mig_profile,
    normalize_pci_bus_id,
    throttle_reason_names,
)
from envsnap.snapshot.model import DeviceSample, DeviceStatus, GpuProcess, MigInstance


class DeviceGone(Exception):
    """A GPU stopped answering in the middle of a handle pass (lost, or needing a reset)."""

    def __init__(self, status: DeviceStatus, reason: str) -> None:
        super().__init__(reason)
        self.status: DeviceStatus = status
        self.reason = reason


class Query(Protocol):
    """Run ``nvml.<function>(handle, *args, **kwargs)``; None when NVML has no value for it.

    Raises DeviceGone when the GPU itself stopped answering.
    """

    def __call__(self, function: str, *args: Any, **kwargs: Any) -> Any: ...


QueryFactory = Callable[[Any], Query]
"""Makes a Query for another handle (a MIG device of the GPU being read)."""

SystemQuery = Callable[..., Any]
"""Run a handle-less ``nvml.<function>(*args)``; None when NVML has no value for it."""

_FEATURE_ENABLED = 1
_TEMPERATURE_GPU = 0
_CLOCK_GRAPHICS, _CLOCK_SM, _CLOCK_MEM = 0, 1, 2
_ERROR_CORRECTED, _ERROR_UNCORRECTED = 0, 1
_VOLATILE_ECC = 0


def text(value: Any) -> str | None:
    """NVML strings arrive as ``str`` from nvidia-ml-py's wrappers but ``bytes`` inside structs."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    value = str(value).strip()
    return value or None


def _watts(milliwatts: Any) -> float | None:
    return None if milliwatts is None else round(int(milliwatts) / 1000.0, 3)


def _enabled(state: Any) -> bool | None:
    """``[current, pending]`` pairs and plain feature states to a bool of the current state."""
    if state is None:
        return None
    current = state[0] if isinstance(state, (list, tuple)) else state
    return int(current) == _FEATURE_ENABLED


def identity(query: Query) -> dict[str, Any]:
    """Name, UUID and PCI bus id: what ties a telemetry sample to its device.

    Command line equivalent: ``nvidia-smi --query-gpu=name,uuid,pci.bus_id --format=csv``
    """
    pci = query("nvmlDeviceGetPciInfo")
    bus_id = text(getattr(pci, "busId", None)) if pci is not None else None
    return {
        "name": text(query("nvmlDeviceGetName")),
        "uuid": text(query("nvmlDeviceGetUUID")),
        "pci_bus_id": normalize_pci_bus_id(bus_id) if bus_id else None,
    }


def memory(query: Query, version_v2: int | None) -> Any:
    """Frame-buffer memory: ``_v2`` (reserved memory split out, as nvidia-smi shows it), else v1.

    Command line equivalent: ``nvidia-smi --query-gpu=memory.total,memory.used,memory.free --format=csv``
    """
    info = query("nvmlDeviceGetMemoryInfo", version=version_v2) if version_v2 is not None else None
    return info if info is not None else query("nvmlDeviceGetMemoryInfo")


def static_fields(query: Query, mem: Any) -> dict[str, Any]:
    """Facts that stay the same between two saves of an unchanged machine.

    Command line equivalent: ``nvidia-smi -q -d MEMORY,CLOCK,POWER,ECC,PERFORMANCE,COMPUTE`` and
    ``nvidia-smi --query-gpu=serial,compute_cap,vbios_version,pcie.link.gen.max --format=csv``
    """
    capability = query("nvmlDeviceGetCudaComputeCapability")
    architecture = query("nvmlDeviceGetArchitecture")
    bar1 = query("nvmlDeviceGetBAR1MemoryInfo")
    compute_mode = query("nvmlDeviceGetComputeMode")
    # nvidia-ml-py 13 calls the _v2 symbol, which drivers before ~570 lack; _v1 is the old one.
    driver_model = query("nvmlDeviceGetDriverModel")
    if driver_model is None:
        driver_model = query("nvmlDeviceGetDriverModel_v1")
    return {
        "serial": text(query("nvmlDeviceGetSerial")),
        "compute_capability": f"{capability[0]}.{capability[1]}" if capability is not None else None,
        "architecture": ARCHITECTURES.get(int(architecture)) if architecture is not None else None,
        "memory_total_bytes": int(mem.total) if mem is not None else None,
        "bar1_total_bytes": int(bar1.bar1Total) if bar1 is not None else None,
        "power_limit_watts": _watts(query("nvmlDeviceGetEnforcedPowerLimit")),
        "max_graphics_clock_mhz": query("nvmlDeviceGetMaxClockInfo", _CLOCK_GRAPHICS),
        "max_sm_clock_mhz": query("nvmlDeviceGetMaxClockInfo", _CLOCK_SM),
        "max_memory_clock_mhz": query("nvmlDeviceGetMaxClockInfo", _CLOCK_MEM),
        "pcie_link_gen_max": query("nvmlDeviceGetMaxPcieLinkGeneration"),
        "pcie_link_width_max": query("nvmlDeviceGetMaxPcieLinkWidth"),
        "ecc_enabled": _enabled(query("nvmlDeviceGetEccMode")),
        "persistence_mode": _enabled(query("nvmlDeviceGetPersistenceMode")),
        "compute_mode": COMPUTE_MODES.get(int(compute_mode)) if compute_mode is not None else None,
        "vbios_version": text(query("nvmlDeviceGetVbiosVersion")),
        "board_part_number": text(query("nvmlDeviceGetBoardPartNumber")),
        "driver_model": DRIVER_MODELS.get(int(driver_model[0])) if driver_model is not None else None,
    }


def mig(query: Query, query_for: QueryFactory, version_v2: int | None) -> dict[str, Any]:
    """MIG mode and, when enabled, the MIG devices carved out of the GPU.

    Command line equivalent: ``nvidia-smi -L`` (profiles, UUIDs) and ``nvidia-smi mig -lgi``
    """
    enabled = _enabled(query("nvmlDeviceGetMigMode"))
    if not enabled:
        return {"mig_enabled": enabled}
    slots = query("nvmlDeviceGetMaxMigDeviceCount")
    if slots is None:  # MIG on, but the instances can't be listed: unknown, not "none"
        return {"mig_enabled": True}
    instances: list[MigInstance] = []
    for slot in range(int(slots)):
        handle = query("nvmlDeviceGetMigDeviceHandleByIndex", slot)
        if handle is None:  # an empty slot answers NOT_FOUND
            continue
        mig_query = query_for(handle)
        name = text(mig_query("nvmlDeviceGetName"))
        mem = memory(mig_query, version_v2)
        instances.append(
            MigInstance(
                gpu_instance_id=mig_query("nvmlDeviceGetGpuInstanceId"),
                compute_instance_id=mig_query("nvmlDeviceGetComputeInstanceId"),
                profile=mig_profile(name) if name else None,
                uuid=text(mig_query("nvmlDeviceGetUUID")),
                memory_total_bytes=int(mem.total) if mem is not None else None,
            )
        )
    return {"mig_enabled": True, "mig_instances": tuple(instances)}


def _versioned(query: Query, function: str) -> Any:
    """``_v3`` (R510+), else ``_v2``: the unversioned name in nvidia-ml-py means ``_v3`` only."""
    value = query(f"{function}_v3")
    return value if value is not None else query(f"{function}_v2")


def _processes(query: Query, system: SystemQuery) -> tuple[GpuProcess, ...] | None:
    """Compute and graphics processes; one holding both contexts counts as compute.

    Command line equivalent: ``nvidia-smi --query-compute-apps=pid,process_name,used_gpu_memory --format=csv``
    """
    compute = _versioned(query, "nvmlDeviceGetComputeRunningProcesses")
    graphics = _versioned(query, "nvmlDeviceGetGraphicsRunningProcesses")
    if compute is None and graphics is None:
        return None
    found: dict[int, GpuProcess] = {}
    lists: tuple[tuple[Literal["graphics", "compute"], Any], ...] = (
        ("graphics", graphics),
        ("compute", compute),
    )
    for kind, entries in lists:
        for entry in entries or ():
            pid = int(entry.pid)
            # usedGpuMemory is None under Windows WDDM, where the driver cannot attribute memory.
            used = None if entry.usedGpuMemory is None else int(entry.usedGpuMemory)
            previous = found.get(pid)
            known = [m for m in (used, previous.used_memory_bytes if previous else None) if m is not None]
            found[pid] = GpuProcess(pid=pid, used_memory_bytes=max(known) if known else None, kind=kind)
    return tuple(
        GpuProcess(
            pid=p.pid,
            used_memory_bytes=p.used_memory_bytes,
            kind=p.kind,
            name=text(system("nvmlSystemGetProcessName", p.pid)),
        )
        for p in sorted(found.values(), key=lambda p: p.pid)
    )


def sample(
    query: Query,
    system: SystemQuery,
    index: int,
    ident: dict[str, Any],
    version_v2: int | None,
    mem: Any = None,
) -> DeviceSample:
    """One telemetry reading of a GPU.

    Command line equivalent: ``nvidia-smi --query-gpu=memory.used,utilization.gpu,temperature.gpu,
    power.draw,clocks.sm,fan.speed,pcie.link.gen.current,clocks_event_reasons.active --format=csv``

    ``mem`` is the memory answer when the caller already read it in this handle pass.
    """
    if mem is None:
        mem = memory(query, version_v2)
    utilization = query("nvmlDeviceGetUtilizationRates")
    reasons = query("nvmlDeviceGetCurrentClocksEventReasons")
    if reasons is None:  # the pre-535 name of the same call
        reasons = query("nvmlDeviceGetCurrentClocksThrottleReasons")
    retired = query("nvmlDeviceGetRetiredPagesPendingStatus")
    remapped = query("nvmlDeviceGetRemappedRows")
    temperature = query("nvmlDeviceGetTemperature", _TEMPERATURE_GPU)
    fan = query("nvmlDeviceGetFanSpeed")
    return DeviceSample(
        vendor="nvidia",
        index=index,
        **ident,
        memory_used_bytes=int(mem.used) if mem is not None else None,
        memory_free_bytes=int(mem.free) if mem is not None else None,
        memory_total_bytes=int(mem.total) if mem is not None else None,
        gpu_util_percent=float(utilization.gpu) if utilization is not None else None,
        memory_util_percent=float(utilization.memory) if utilization is not None else None,
        temperature_c=float(temperature) if temperature is not None else None,
        power_draw_watts=_watts(query("nvmlDeviceGetPowerUsage")),
        power_limit_watts=_watts(query("nvmlDeviceGetEnforcedPowerLimit")),
        graphics_clock_mhz=query("nvmlDeviceGetClockInfo", _CLOCK_GRAPHICS),
        sm_clock_mhz=query("nvmlDeviceGetClockInfo", _CLOCK_SM),
        memory_clock_mhz=query("nvmlDeviceGetClockInfo", _CLOCK_MEM),
        fan_percent=float(fan) if fan is not None else None,
        pcie_link_gen=query("nvmlDeviceGetCurrPcieLinkGeneration"),
        pcie_link_width=query("nvmlDeviceGetCurrPcieLinkWidth"),
        throttle_reasons=throttle_reason_names(int(reasons)) if reasons is not None else None,
        ecc_errors_corrected=query("nvmlDeviceGetTotalEccErrors", _ERROR_CORRECTED, _VOLATILE_ECC),
        ecc_errors_uncorrected=query("nvmlDeviceGetTotalEccErrors", _ERROR_UNCORRECTED, _VOLATILE_ECC),
        retired_pages_pending=bool(retired) if retired is not None else None,
        remapped_rows_pending=bool(remapped[2]) if remapped is not None else None,
        processes=_processes(query, system),
    )
