"""Snapshot factory for rule tests: small builders over the real model classes.

Each preset's name, compute capability, driver and CUDA ceiling are the values of the real capture
named next to it (the project's shared nvidia-smi / amd-smi / rocm-smi fixtures; nvidia-smi XML has
no compute capability, so that one is NVIDIA's table entry for the product). Tests that need whole
device records or telemetry parse the captures copied into tests/data/nvidia (tests/rules/fixtures.py,
attribution in tests/data/SOURCES.md). Torch pins are the ones compat-rules.md read from the wheels'
METADATA; onnxruntime-gpu and torchvision requirement lines are from their PyPI metadata.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from envsnap.snapshot.model import (
    Accelerators,
    AmdDevice,
    AmdInfo,
    CudaToolkit,
    DeviceSample,
    Environment,
    Frameworks,
    Host,
    LoadedLibrary,
    Meta,
    MpsInfo,
    NvidiaDevice,
    NvidiaInfo,
    Package,
    PythonEnv,
    Sample,
    Snapshot,
    Toolkits,
    TorchAvailability,
    TorchInfo,
)

# name, compute capability, driver, CUDA ceiling — one row per real capture.
NVIDIA = {
    # nvidia-smi/captures/linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt
    "h100": ("NVIDIA H100 80GB HBM3", "9.0", "590.48.01", "13.1"),
    # nvidia-smi/captures/linux-x86_64__nvidia-l40s__595.80.txt
    "l40s": ("NVIDIA L40S", "8.9", "595.80", "13.2"),
    # nvidia-smi/captures/linux-x86_64__nvidia-geforce-rtx-2080-super__595.71.05.txt
    "rtx2080s": ("NVIDIA GeForce RTX 2080 SUPER", "7.5", "595.71.05", "13.2"),
    # nvidia-smi/tesla-p100-pcie-16gb_driver-510.47.03_dtd-v11.xml
    "p100": ("Tesla P100-PCIE-16GB", "6.0", "510.47.03", "11.6"),
    # nvidia-smi/8x-tesla-v100s-pcie-32gb_driver-460.73.01_dtd-v11.xml
    "v100s": ("Tesla V100S-PCIE-32GB", "7.0", "460.73.01", "11.2"),
    # nvidia-smi/tesla-t4_driver-515.105.01_dtd-v11.xml
    "t4": ("Tesla T4", "7.5", "515.105.01", "11.7"),
    # nvidia-smi/a100-sxm4-80gb_mig-enabled_driver-535.54.03_dtd-v12.xml
    "a100": ("NVIDIA A100-SXM4-80GB", "8.0", "535.54.03", "12.2"),
    # nvidia-smi/geforce-rtx-3090_driver-525.147.05_dtd-v12.xml
    "rtx3090": ("NVIDIA GeForce RTX 3090", "8.6", "525.147.05", "12.0"),
    # nvidia-smi/geforce-rtx-3080_driver-595.58.03_dtd-v13.xml
    "rtx3080": ("NVIDIA GeForce RTX 3080", "8.6", "595.58.03", "13.2"),
    # nvidia-smi/geforce-rtx-4090_driver-535.86.05_dtd-v12.xml
    "rtx4090": ("NVIDIA GeForce RTX 4090", "8.9", "535.86.05", "12.2"),
    # nvidia-smi/geforce-rtx-3060_driver-570.124.04_dtd-v12.xml (driver of the first Blackwell branch)
    "rtx3060": ("NVIDIA GeForce RTX 3060", "8.6", "570.124.04", "12.8"),
    # NVIDIA "CUDA GPU Compute Capability" (compat-rules.md B2.1): no capture of a 5090 exists, so the
    # driver is the 570.124.04 of the RTX 3060 capture, the branch that added Blackwell.
    "rtx5090": ("NVIDIA GeForce RTX 5090", "12.0", "570.124.04", "12.8"),
}

# name, gfx target, ROCm version — from amd-smi / rocm-smi captures.
AMD = {
    # amd-smi/mi210_amd-smi-static-json_EXTRACTED.json
    "mi210": ("AMD Instinct MI210", "gfx90a", None),
    # rocm-smi/4x-mi100_rocm-6.0.2_drv-6.3.6_telegraf-flags.json ("Arcturus GL-XL [Instinct MI100]")
    "mi100": ("Arcturus GL-XL [Instinct MI100]", "gfx908", "6.0.2"),
    # rocm-smi/radeon-rx6700xt_rocm-6.0.2_drv-6.3.6_telegraf-flags.json; gfx1031 per ROCm's GPU table
    "rx6700xt": ("Navi 22 [Radeon RX 6700/6700 XT / 6800M]", "gfx1031", "6.0.2"),
    # rocm-smi/mi50-32gb-vega20_drv-5.9.17_telegraf-flags.json; gfx906 per ROCm's GPU table
    "mi50": ("Radeon Instinct MI50 32GB", "gfx906", None),
}

META = Meta(envsnap_version="0.1.0", captured_at="2026-08-01T12:00:00Z")


def snapshot(**sections: Any) -> Snapshot:
    """A snapshot of a Linux x86_64 host with CPython 3.11 plus the given sections."""
    sections.setdefault("host", Host(status="ok", os_id="ubuntu", os_name="Ubuntu", arch="x86_64"))
    sections.setdefault("python", PythonEnv(status="ok", version="3.11.7", implementation="CPython"))
    return Snapshot(schema=1, meta=sections.pop("meta", META), **sections)


def nvidia_device(preset: str, index: int = 0, **fields: Any) -> NvidiaDevice:
    """One NVIDIA GPU of a preset."""
    name, cc, _, _ = NVIDIA[preset]
    return NvidiaDevice(
        index=index, name=name, compute_capability=cc, pci_bus_id=f"0000:{index + 1:02X}:00.0", **fields
    )


def nvidia(preset: str, count: int = 1, *, driver: str | None = None, **fields: Any) -> NvidiaInfo:
    """An NVIDIA section with ``count`` GPUs of a preset and its capture's driver."""
    _, _, preset_driver, ceiling = NVIDIA[preset]
    devices = fields.pop("devices", tuple(nvidia_device(preset, i) for i in range(count)))
    fields.setdefault("cuda_driver_version", ceiling)
    return NvidiaInfo(
        status="ok", source="nvml", driver_version=driver or preset_driver, devices=devices, **fields
    )


def no_nvidia() -> NvidiaInfo:
    """The NVIDIA section of a host without a driver (this development machine)."""
    return NvidiaInfo(status="skipped", reason="NVIDIA driver not installed (libnvidia-ml.so.1 not found)")


def amd(preset: str, count: int = 1, **fields: Any) -> AmdInfo:
    """An AMD section with ``count`` GPUs of a preset."""
    name, gfx, rocm = AMD[preset]
    devices = tuple(
        AmdDevice(index=i, name=name, gfx_target=gfx, pci_bus_id=f"0000:{i + 3:02X}:00.0")
        for i in range(count)
    )
    fields.setdefault("rocm_version", rocm)
    return AmdInfo(status="ok", source="sysfs", devices=devices, **fields)


def accelerators(**vendors: Any) -> Accelerators:
    """Accelerators with the given vendor sections (NVIDIA absent = no driver)."""
    vendors.setdefault("nvidia", no_nvidia())
    return Accelerators(**vendors)


def torch(
    version: str,
    cuda: str | None = None,
    *,
    hip: str | None = None,
    arch_list: Iterable[str] | None = None,
    available: bool | None = None,
    **fields: Any,
) -> Frameworks:
    """A frameworks section with a torch build."""
    info = TorchInfo(
        status="ok",
        version=version,
        cuda=cuda,
        hip=hip,
        arch_list=tuple(arch_list) if arch_list is not None else None,
        available=TorchAvailability(cuda=available) if available is not None else None,
        **fields,
    )
    return Frameworks(torch=info)


def package(name: str, version: str, requires: Iterable[str] | None = None, **fields: Any) -> Package:
    """An installed distribution."""
    return Package(
        name=name, version=version, requires=tuple(requires) if requires is not None else None, **fields
    )


def env(**variables: str) -> Environment:
    """An environment section with the given variables."""
    return Environment(status="ok", variables=variables)


def cuda_toolkit(version: str, nvcc: str, path: str) -> Toolkits:
    """A system CUDA toolkit."""
    return Toolkits(cuda=CudaToolkit(status="ok", version=version, nvcc_version=nvcc, path=path))


def lib(name: str, path: str, origin: str) -> LoadedLibrary:
    """A library mapped into the framework's process."""
    return LoadedLibrary(name=name, path=path, origin=origin)  # type: ignore[arg-type]


def sample(*devices: DeviceSample) -> Sample:
    """A telemetry section."""
    return Sample(captured_at="2026-08-01T12:00:00Z", devices=devices)


def mps() -> MpsInfo:
    """Apple silicon with MPS."""
    return MpsInfo(status="ok", available=True, chip="Apple M2")


def replace(struct: Any, **changes: Any) -> Any:
    """msgspec.structs.replace, re-exported for tests."""
    return msgspec.structs.replace(struct, **changes)


def ids(findings: Iterable[Any]) -> list[str]:
    """The ids of findings, in order."""
    return [f.id for f in findings]


# torch 2.14.1+cu130 METADATA, read from the PyPI wheel (compat-rules.md B5.1).
TORCH_2_14_1_CU130_REQUIRES = (
    "cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.0.3;"
    ' platform_system == "Linux"',
    'cuda-bindings<14,>=13.0.3; platform_system == "Linux" and python_version < "3.15"',
    'nvidia-cudnn-cu13==9.24.0.43; platform_system == "Linux"',
    'nvidia-cusparselt-cu13==0.8.1; platform_system == "Linux"',
    'nvidia-nccl-cu13==2.30.7; platform_system == "Linux"',
    'nvidia-nvshmem-cu13==3.4.5; platform_system == "Linux"',
    'triton~=3.8.0; platform_system == "Linux" and python_version < "3.15"',
    "filelock",
)

# The cu128 column of PYTORCH_EXTRA_INSTALL_REQUIREMENTS, 2.10/2.11 era (compat-rules.md B5.1).
TORCH_CU128_PINS = {
    "nvidia-cuda-nvrtc-cu12": "12.8.93",
    "nvidia-cuda-runtime-cu12": "12.8.90",
    "nvidia-cuda-cupti-cu12": "12.8.90",
    "nvidia-cudnn-cu12": "9.10.2.21",
    "nvidia-cublas-cu12": "12.8.4.1",
    "nvidia-nvjitlink-cu12": "12.8.93",
    "nvidia-nccl-cu12": "2.28.9",
}
TORCH_CU128_REQUIRES = tuple(f"{n}=={v}; platform_system == 'Linux'" for n, v in TORCH_CU128_PINS.items())
