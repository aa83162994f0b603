"""The NVIDIA vocabulary shared by the NVML probe and the ``nvidia-smi -q -x`` parser.

Both sources describe the same driver state in different encodings: NVML hands out enum
integers and bitmasks, nvidia-smi prints words. This module holds the one mapping from each
to the names envsnap stores, so a snapshot reads the same whichever source produced it.
"""

from __future__ import annotations

import re

ARCHITECTURES: dict[int, str] = {
    2: "Kepler",
    3: "Maxwell",
    4: "Pascal",
    5: "Volta",
    6: "Turing",
    7: "Ampere",
    8: "Ada Lovelace",
    9: "Hopper",
    10: "Blackwell",
    13: "Rubin",
}
"""``nvmlDeviceArchitecture_t`` values to the words nvidia-smi prints as "Product Architecture"."""

COMPUTE_MODES: dict[int, str] = {
    0: "Default",
    1: "Exclusive_Thread",
    2: "Prohibited",
    3: "Exclusive_Process",
}
"""``nvmlComputeMode_t`` values to nvidia-smi's ``compute_mode`` words."""

DRIVER_MODELS: dict[int, str] = {0: "WDDM", 1: "TCC", 2: "MCDM"}
"""``nvmlDriverModel_t`` values (Windows only) to nvidia-smi's ``driver_model`` words.

NVML calls the second one ``NVML_DRIVER_WDM``; nvidia-smi prints it as "TCC".
"""

THROTTLE_REASONS: dict[int, str] = {
    0x001: "gpu_idle",
    0x002: "applications_clocks_setting",
    0x004: "sw_power_cap",
    0x008: "hw_slowdown",
    0x010: "sync_boost",
    0x020: "sw_thermal_slowdown",
    0x040: "hw_thermal_slowdown",
    0x080: "hw_power_brake_slowdown",
    0x100: "display_clocks_setting",
}
"""``nvmlClocksEventReason*`` bits to names; the names are nvidia-smi's XML element suffixes."""

_PCI_BUS_ID = re.compile(r"^(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])$")


def throttle_reason_names(mask: int) -> tuple[str, ...]:
    """Decode a clocks-event (throttle) bitmask into names, lowest bit first.

    Bits this table does not know yet (a newer driver) come out as ``bit_0x...`` rather than
    vanishing, so a new reason is still visible.
    """
    names: list[str] = []
    bit = 1
    while bit <= mask:
        if mask & bit:
            names.append(THROTTLE_REASONS.get(bit, f"bit_{bit:#x}"))
        bit <<= 1
    return tuple(names)


def normalize_pci_bus_id(raw: str) -> str | None:
    """``00000000:3b:00.0`` (NVML, nvidia-smi) to the ``0000:3B:00.0`` form stored in snapshots.

    The domain keeps more than four digits only when it needs them (some hypervisors use
    domains above 0xFFFF); None when the text is not a PCI address at all.
    """
    match = _PCI_BUS_ID.match(raw.strip())
    if match is None:
        return None
    domain, bus, device, function = match.groups()
    domain_value = int(domain or "0", 16)
    return f"{domain_value:04X}:{int(bus, 16):02X}:{int(device, 16):02X}.{function}"


def format_cuda_version(value: int) -> str | None:
    """NVML's CUDA driver version integer (``12040``) as ``"12.4"``; None for 0 or negatives."""
    if value <= 0:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


def mig_profile(device_name: str) -> str | None:
    """The MIG profile from a MIG device's NVML name, e.g. "NVIDIA H100 80GB HBM3 MIG 3g.40gb" → "3g.40gb"."""
    _, sep, profile = device_name.rpartition(" MIG ")
    return profile.strip() or None if sep else None
