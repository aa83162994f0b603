"""Parser of ``nvidia-smi -q -x`` XML into the snapshot model: static facts plus one sample per GPU.

It is a pure function of the text, so it serves three callers: the NVIDIA probe's fallback when
NVML can't load but ``nvidia-smi`` runs, ``envsnap import nvidia-smi-xml``, and test doubles that
replay recorded hardware. It reads every schema generation seen in the wild (DTD v11, v12, v13,
files without DOCTYPE or XML declaration, Windows/WDDM) by looking for each value under the
names it has had, and it refuses DTD tricks: nvidia-smi's own DOCTYPE line is dropped, anything
that declares entities or an internal subset is rejected before parsing.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Literal

from envsnap.errors import BadInput
from envsnap.probes.nvidia.names import normalize_pci_bus_id
from envsnap.snapshot.model import DeviceSample, GpuProcess, MigInstance, NvidiaDevice, NvidiaInfo

XmlSource = Literal["nvidia-smi", "import"]

_MAX_XML_CHARS = 32 << 20
"""A real 8-GPU file is ~230 kB; anything far larger is not nvidia-smi output."""

_NOT_A_VALUE = frozenset(
    {
        "",
        "n/a",
        "not supported",
        "not available",
        "unknown error",
        "insufficient permissions",
        "requested functionality has been deprecated",
        "err!",
    }
)
"""Placeholders nvidia-smi prints instead of a value (also inside ``[...]``), compared lowercased."""

_DOCTYPE = re.compile(r"<!DOCTYPE\s+nvidia_smi_log\s+SYSTEM\s+\"[^\"<>\[\]]*\"\s*>")
_NUMBER = re.compile(r"^[-+]?\d+(?:\.\d+)?")
_UNIT_BYTES = {"b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


@dataclass(frozen=True)
class NvidiaSmiReport:
    """What one ``nvidia-smi -q -x`` document says: the NVIDIA section and one sample per GPU."""

    info: NvidiaInfo
    samples: tuple[DeviceSample, ...]


# ---------------------------------------------------------------------------- value helpers


def _value(node: ET.Element | None, path: str) -> str | None:
    """Text at ``path`` under ``node``, or None when missing or a "N/A"-style placeholder."""
    if node is None:
        return None
    found = node.find(path)
    if found is None or found.text is None:
        return None
    text = found.text.strip()
    bare = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    return None if bare.lower() in _NOT_A_VALUE else text


def _first(node: ET.Element | None, *paths: str) -> str | None:
    """The first present value among paths that held the same field in different schema versions."""
    for path in paths:
        value = _value(node, path)
        if value is not None:
            return value
    return None


MAX_READING = 2.0**53
"""Largest number taken from a report (bytes, MHz, watts...): beyond it a value is nonsense or hostile."""


def _number(text: str | None) -> float | None:
    """Leading number of "250.00 W", "45 %", "16x", "27 C"; None when there is none."""
    if text is None:
        return None
    match = _NUMBER.match(text.strip())
    if not match:
        return None
    number = float(match.group())
    # "999...9 MiB" overflows to inf (and int(inf) raises): a reading no device gives is not reported.
    return number if math.isfinite(number) and abs(number) < MAX_READING else None


def _int(text: str | None) -> int | None:
    number = _number(text)
    return None if number is None else int(number)


def _bytes(text: str | None) -> int | None:
    """ "80 MiB" → bytes; a bare number counts as MiB (nvidia-smi's unit for every memory field)."""
    if text is None:
        return None
    parts = text.split()
    number = _number(parts[0]) if parts else None
    if number is None:
        return None
    scale = _UNIT_BYTES.get(parts[1].lower()) if len(parts) > 1 else _UNIT_BYTES["mib"]
    return None if scale is None else int(number * scale)


def _flag(text: str | None, true: str = "enabled", false: str = "disabled") -> bool | None:
    """ "Enabled"/"Disabled" (or "Yes"/"No", "Active"/"Not Active") to a bool; None otherwise."""
    if text is None:
        return None
    lowered = text.strip().lower()
    if lowered == true:
        return True
    return False if lowered == false else None


def _yes(text: str | None) -> bool | None:
    return _flag(text, "yes", "no")


def _sum(*values: str | None) -> int | None:
    """Sum of the counters present; None when none is."""
    numbers = [n for n in (_int(v) for v in values) if n is not None]
    return sum(numbers) if numbers else None


# ---------------------------------------------------------------------------- safe parsing


def _root(xml_text: str) -> ET.Element:
    """Parse the document, refusing entity declarations and internal DTD subsets."""
    if len(xml_text) > _MAX_XML_CHARS:
        raise BadInput(f"nvidia-smi XML: {len(xml_text)} characters is too large to be nvidia-smi output")
    text = _DOCTYPE.sub("", xml_text, count=1)
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise BadInput(
            "nvidia-smi XML: refusing a DOCTYPE with declarations or entities (not nvidia-smi output)"
        )
    # Without a DOCTYPE no entity can be declared, and expat never fetches external DTDs, so
    # the only references left are the five predefined ones; an undefined one is a parse error.
    try:
        root = ET.fromstring(text)
    except ET.ParseError as err:
        line, column = err.position
        raise BadInput(f"nvidia-smi XML: not well-formed XML at line {line}, column {column + 1}") from None
    if root.tag != "nvidia_smi_log":
        raise BadInput(f"nvidia-smi XML: root element is <{root.tag}>, expected <nvidia_smi_log>")
    return root


# ---------------------------------------------------------------------------- per GPU


def _throttle_reasons(gpu: ET.Element) -> tuple[str, ...] | None:
    """Active clock-event reasons; the block was ``clocks_throttle_reasons`` before driver 535."""
    for block_name, prefix in (
        ("clocks_event_reasons", "clocks_event_reason_"),
        ("clocks_throttle_reasons", "clocks_throttle_reason_"),
    ):
        block = gpu.find(block_name)
        if block is None:
            continue
        states = {
            child.tag.removeprefix(prefix): _flag(_value(block, child.tag), "active", "not active")
            for child in block
        }
        if all(state is None for state in states.values()):
            return None
        return tuple(name for name, active in states.items() if active)
    return None


def _ecc_volatile(volatile: ET.Element | None) -> tuple[int | None, int | None]:
    """Volatile (since driver load) corrected and uncorrected ECC error counts."""
    if volatile is None:
        return None, None
    if volatile.find("single_bit") is not None:  # v11 and older: single/double-bit totals
        return _int(_value(volatile, "single_bit/total")), _int(_value(volatile, "double_bit/total"))
    # Later schemas split the counters by memory kind (and SRAM uncorrectable by detector).
    corrected = _sum(_value(volatile, "sram_correctable"), _value(volatile, "dram_correctable"))
    uncorrected = _sum(
        _value(volatile, "sram_uncorrectable"),
        _value(volatile, "sram_uncorrectable_parity"),
        _value(volatile, "sram_uncorrectable_secded"),
        _value(volatile, "dram_uncorrectable"),
    )
    return corrected, uncorrected


def _processes(gpu: ET.Element) -> tuple[GpuProcess, ...] | None:
    block = gpu.find("processes")
    if block is None:
        return None
    processes: list[GpuProcess] = []
    for info in block.findall("process_info"):
        pid = _int(_value(info, "pid"))
        if pid is None:
            continue
        kind = _value(info, "type")
        # "C+G" holds a compute context, which is what an ML stack cares about.
        processes.append(
            GpuProcess(
                pid=pid,
                used_memory_bytes=_bytes(_value(info, "used_memory")),
                kind="compute" if kind in ("C", "C+G") else "graphics" if kind == "G" else None,
                name=_value(info, "process_name"),
            )
        )
    return tuple(sorted(processes, key=lambda p: p.pid))


def _mig_instances(gpu: ET.Element) -> tuple[MigInstance, ...] | None:
    block = gpu.find("mig_devices")
    if block is None:
        return None
    instances = [
        MigInstance(
            gpu_instance_id=_int(_value(mig, "gpu_instance_id")),
            compute_instance_id=_int(_value(mig, "compute_instance_id")),
            memory_total_bytes=_bytes(_value(mig, "fb_memory_usage/total")),
        )
        for mig in block.findall("mig_device")
    ]
    return tuple(instances) or None


def _device(gpu: ET.Element, index: int) -> NvidiaDevice:
    link = gpu.find("pci/pci_gpu_link_info")
    mig_enabled = _flag(_value(gpu, "mig_mode/current_mig"))
    power = gpu.find("gpu_power_readings")
    if power is None:
        power = gpu.find("power_readings")
    bus_id = _value(gpu, "pci/pci_bus_id") or gpu.get("id")
    return NvidiaDevice(
        index=index,
        name=_value(gpu, "product_name"),
        uuid=_value(gpu, "uuid"),
        serial=_value(gpu, "serial"),
        pci_bus_id=normalize_pci_bus_id(bus_id) if bus_id else None,
        architecture=_value(gpu, "product_architecture"),
        memory_total_bytes=_bytes(_value(gpu, "fb_memory_usage/total")),
        bar1_total_bytes=_bytes(_value(gpu, "bar1_memory_usage/total")),
        power_limit_watts=_number(
            _first(power, "current_power_limit", "enforced_power_limit", "power_limit")
        ),
        max_graphics_clock_mhz=_int(_value(gpu, "max_clocks/graphics_clock")),
        max_sm_clock_mhz=_int(_value(gpu, "max_clocks/sm_clock")),
        max_memory_clock_mhz=_int(_value(gpu, "max_clocks/mem_clock")),
        pcie_link_gen_max=_int(_value(link, "pcie_gen/max_link_gen")),
        pcie_link_width_max=_int(_value(link, "link_widths/max_link_width")),
        ecc_enabled=_flag(_value(gpu, "ecc_mode/current_ecc")),
        mig_enabled=mig_enabled,
        mig_instances=_mig_instances(gpu) if mig_enabled else None,
        persistence_mode=_flag(_value(gpu, "persistence_mode")),
        compute_mode=_value(gpu, "compute_mode"),
        vbios_version=_value(gpu, "vbios_version"),
        board_part_number=_value(gpu, "board_part_number"),
        driver_model=_value(gpu, "driver_model/current_dm"),
    )


def _sample(gpu: ET.Element, device: NvidiaDevice) -> DeviceSample:
    link = gpu.find("pci/pci_gpu_link_info")
    power = gpu.find("gpu_power_readings")
    if power is None:
        power = gpu.find("power_readings")
    corrected, uncorrected = _ecc_volatile(gpu.find("ecc_errors/volatile"))
    return DeviceSample(
        vendor="nvidia",
        index=device.index,
        name=device.name,
        pci_bus_id=device.pci_bus_id,
        uuid=device.uuid,
        memory_used_bytes=_bytes(_value(gpu, "fb_memory_usage/used")),
        memory_free_bytes=_bytes(_value(gpu, "fb_memory_usage/free")),
        memory_total_bytes=device.memory_total_bytes,
        gpu_util_percent=_number(_value(gpu, "utilization/gpu_util")),
        memory_util_percent=_number(_value(gpu, "utilization/memory_util")),
        temperature_c=_number(_value(gpu, "temperature/gpu_temp")),
        power_draw_watts=_number(_first(power, "power_draw", "average_power_draw", "instant_power_draw")),
        power_limit_watts=device.power_limit_watts,
        graphics_clock_mhz=_int(_value(gpu, "clocks/graphics_clock")),
        sm_clock_mhz=_int(_value(gpu, "clocks/sm_clock")),
        memory_clock_mhz=_int(_value(gpu, "clocks/mem_clock")),
        fan_percent=_number(_value(gpu, "fan_speed")),
        pcie_link_gen=_int(_value(link, "pcie_gen/current_link_gen")),
        pcie_link_width=_int(_value(link, "link_widths/current_link_width")),
        throttle_reasons=_throttle_reasons(gpu),
        ecc_errors_corrected=corrected,
        ecc_errors_uncorrected=uncorrected,
        retired_pages_pending=_yes(
            _first(gpu, "retired_pages/pending_retirement", "retired_pages/pending_blacklist")
        ),
        remapped_rows_pending=_yes(_value(gpu, "remapped_rows/remapped_row_pending")),
        processes=_processes(gpu),
    )


# ---------------------------------------------------------------------------- entry point


def parse(xml_text: str, *, source: XmlSource = "nvidia-smi") -> NvidiaSmiReport:
    """Parse one ``nvidia-smi -q -x`` document.

    Args:
        xml_text: the whole document as text.
        source: recorded in ``NvidiaInfo.source``: "nvidia-smi" when the probe ran it, "import"
            for ``envsnap import nvidia-smi-xml``.

    Returns:
        The NVIDIA section (status ok; devices in document order, which is nvidia-smi's PCI
        order) and one telemetry sample per GPU. Compute capability is absent: nvidia-smi's
        XML does not carry it.

    Raises:
        BadInput: not well-formed, not nvidia-smi output, or carrying DTD/entity declarations.
    """
    root = _root(xml_text)
    devices: list[NvidiaDevice] = []
    samples: list[DeviceSample] = []
    for index, gpu in enumerate(root.findall("gpu")):
        device = _device(gpu, index)
        devices.append(device)
        samples.append(_sample(gpu, device))
    info = NvidiaInfo(
        status="ok",
        source=source,
        driver_version=_value(root, "driver_version"),
        cuda_driver_version=_value(root, "cuda_version"),
        devices=tuple(devices),
    )
    return NvidiaSmiReport(info=info, samples=tuple(samples))
