"""Real NVIDIA state for rule tests, parsed from the nvidia-smi XML captures in tests/data/nvidia.

The XML files were copied by the NVIDIA probe work (attribution in tests/data/SOURCES.md). nvidia-smi's
XML has no compute capability, so callers add it from NVIDIA's table (compat-rules.md B2.1).
"""

from __future__ import annotations

import msgspec

from envsnap.probes.nvidia.smi_xml import parse
from envsnap.snapshot.model import DeviceSample, NvidiaInfo
from tests.conftest import DATA


def nvidia_xml(
    name: str, compute_capability: str | None = None
) -> tuple[NvidiaInfo, tuple[DeviceSample, ...]]:
    """The NVIDIA section and telemetry samples of one capture, optionally with each device's CC set."""
    report = parse((DATA / "nvidia" / name).read_text(encoding="utf-8"))
    info = report.info
    if compute_capability is not None and info.devices is not None:
        devices = tuple(
            msgspec.structs.replace(d, compute_capability=compute_capability) for d in info.devices
        )
        info = msgspec.structs.replace(info, devices=devices)
    return info, report.samples


V100S_8X = "8x-tesla-v100s-pcie-32gb_driver-460.73.01_dtd-v11.xml"
T4 = "tesla-t4_driver-515.105.01_dtd-v11.xml"
P100 = "tesla-p100-pcie-16gb_driver-510.47.03_dtd-v11.xml"
RTX3080 = "geforce-rtx-3080_driver-595.58.03_dtd-v13.xml"
A100_MIG = "a100-sxm4-80gb_mig-enabled_driver-535.54.03_dtd-v12.xml"
