"""Snapshots for the diff, fleet and rollback tests, with real values.

NVIDIA sections are parsed from real ``nvidia-smi -q -x`` captures (tests/data/diff/, provenance in
tests/data/SOURCES.md) by envsnap's own parser; compute capabilities, which the XML lacks, are
NVIDIA's published ones. Package names and versions are real releases: torch 2.4.1 with its
cu121/cu124 variants (download.pytorch.org), the rest as installed on the development machine.
Every snapshot goes through ``collect.finalize`` (sorting, redaction, fingerprint) like a probed one.

``imported`` runs envsnap's own importers on report text, as ``envsnap import`` does: a ``pip
freeze`` of the packages above (plus a real editable VCS install and a real wheel URL), or a real
``nvidia-smi -q -x`` capture.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from envsnap.importers import parse_report
from envsnap.probes.nvidia.smi_xml import parse
from envsnap.snapshot import store
from envsnap.snapshot.finalize import finalize
from envsnap.snapshot.model import (
    SCHEMA_VERSION,
    Accelerators,
    CudaToolkit,
    Environment,
    Frameworks,
    Host,
    Meta,
    NvidiaInfo,
    Origin,
    Package,
    PackageSource,
    PythonEnv,
    Snapshot,
    Toolkits,
    TorchAvailability,
    TorchInfo,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "diff"

V100S_X8 = "8x-tesla-v100s-pcie-32gb_driver-460.73.01_dtd-v11.xml"
A100 = "a100-sxm4-80gb_mig-enabled_driver-535.54.03_dtd-v12.xml"
A10G = "a10g_driver-515.105.01_dtd-v11.xml"
T4 = "tesla-t4_driver-515.105.01_dtd-v11.xml"

COMPUTE_CAPABILITY = {
    "Tesla V100S-PCIE-32GB": "7.0",
    "NVIDIA A100-SXM4-80GB": "8.0",
    "NVIDIA A10G": "8.6",
    "Tesla T4": "7.5",
}
"""From https://developer.nvidia.com/cuda-gpus (nvidia-smi's XML does not report it)."""

# (name, version, Requires-Dist) as installed; torch's requirements are its real METADATA lines.
BASE_PACKAGES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("filelock", "4.3.1", ()),
    ("fsspec", "2026.9.0", ()),
    ("Jinja2", "3.1.6", ("MarkupSafe>=2.0",)),
    ("MarkupSafe", "3.0.4", ()),
    ("mpmath", "1.3.0", ()),
    ("networkx", "3.6.1", ()),
    ("sympy", "1.14.0", ("mpmath<1.4,>=1.1.0",)),
    ("typing_extensions", "4.16.0", ()),
    (
        "torch",
        "2.4.1+cu121",
        (
            "filelock",
            "typing-extensions>=4.10.0",
            "sympy>=1.13.3",
            "networkx>=2.5.1",
            "jinja2",
            "fsspec>=0.8.5",
            'optree>=0.13.0; extra == "optree"',
        ),
    ),
)


def nvidia(fixture: str) -> NvidiaInfo:
    """The NVIDIA section of a real capture, compute capabilities added."""
    info = parse((DATA / fixture).read_text(encoding="utf-8")).info
    devices = tuple(
        msgspec.structs.replace(device, compute_capability=COMPUTE_CAPABILITY[device.name or ""])
        for device in info.devices or ()
    )
    return msgspec.structs.replace(info, source="nvml", devices=devices)


def packages(*rows: tuple[str, str, tuple[str, ...]]) -> tuple[Package, ...]:
    """Packages installed by pip from an index."""
    return tuple(
        Package(
            name=name, version=version, installer="pip", source=PackageSource(kind="index"), requires=requires
        )
        for name, version, requires in rows
    )


def make(
    *,
    hostname: str = "gpu-a",
    gpus: str = A100,
    torch: str = "2.4.1+cu121",
    torch_cuda: str | None = "12.1",
    rows: tuple[tuple[str, str, tuple[str, ...]], ...] = BASE_PACKAGES,
    variables: dict[str, str] | None = None,
    **overrides: Any,
) -> Snapshot:
    """A probed-looking snapshot of a GPU host; any top-level section can be overridden."""
    rows = tuple((name, torch if name == "torch" else version, req) for name, version, req in rows)
    base = Snapshot(
        schema=SCHEMA_VERSION,
        meta=Meta(envsnap_version="0.1.0", captured_at="2026-11-29T12:00:00Z", origin=Origin(kind="probe")),
        host=Host(
            status="ok",
            hostname=hostname,
            os_name="Ubuntu",
            os_version="22.04.5 LTS (Jammy Jellyfish)",
            os_id="ubuntu",
            kernel="5.15.0-185-generic",
            arch="x86_64",
            libc="glibc-2.35",
            memory_total_bytes=2_164_137_709_568,
        ),
        python=PythonEnv(
            status="ok",
            version="3.11.7",
            implementation="CPython",
            executable=f"/home/{hostname}-user/venv/bin/python",
            prefix=f"/home/{hostname}-user/venv",
            env_kind="venv",
            env_name="venv",
        ),
        packages=packages(*rows),
        environment=Environment(status="ok", variables=variables or {"CUDA_HOME": "/usr/local/cuda-12.1"}),
        accelerators=Accelerators(nvidia=nvidia(gpus)),
        toolkits=Toolkits(
            cuda=CudaToolkit(
                status="ok", nvcc_version="12.1.105", version="12.1", path="/usr/local/cuda-12.1"
            )
        ),
        frameworks=Frameworks(
            torch=TorchInfo(
                status="ok",
                version=torch,
                cuda=torch_cuda,
                cudnn="90100" if torch_cuda else None,
                arch_list=("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")
                if torch_cuda
                else (),
                available=TorchAvailability(cuda=torch_cuda is not None, xpu=False, mps=False),
            )
        ),
    )
    return finalize(msgspec.structs.replace(base, **overrides) if overrides else base)


def with_torch(snapshot: Snapshot, **fields: Any) -> Snapshot:
    """The snapshot with some fields of its torch build replaced."""
    frameworks = snapshot.frameworks or Frameworks()
    assert frameworks.torch is not None
    torch = msgspec.structs.replace(frameworks.torch, **fields)
    return finalize(
        msgspec.structs.replace(snapshot, frameworks=msgspec.structs.replace(frameworks, torch=torch))
    )


def with_nvidia(snapshot: Snapshot, **fields: Any) -> Snapshot:
    """The snapshot with some fields of its NVIDIA section replaced."""
    accelerators = snapshot.accelerators or Accelerators()
    assert accelerators.nvidia is not None
    info = msgspec.structs.replace(accelerators.nvidia, **fields)
    return finalize(
        msgspec.structs.replace(snapshot, accelerators=msgspec.structs.replace(accelerators, nvidia=info))
    )


def write(snapshot: Snapshot, path: Path) -> Path:
    """Save with envsnap's store, as ``envsnap save`` would."""
    return store.save(snapshot, path)


FLASH_ATTN_COMMIT = "bdf733be55f0b323a8cf7cc6745a81c3f43cd7f0"
TRITON_WHEEL = "https://download.pytorch.org/whl/triton-3.0.0-1-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
PIP_FREEZE = "".join(f"{name}=={version}\n" for name, version, _ in BASE_PACKAGES)
"""``pip freeze`` of the base packages, torch at its +cu121 build."""
PIP_FREEZE_DIRECT = (
    PIP_FREEZE
    + f"-e git+https://github.com/Dao-AILab/flash-attention@{FLASH_ATTN_COMMIT}#egg=flash_attn\n"
    + f"triton @ {TRITON_WHEEL}\n"
)
"""The same, with the two lines pip freeze writes without a version: an editable VCS install and a URL."""


def imported(kind: str, text: str, name: str = "report.txt") -> Snapshot:
    """A snapshot made by envsnap's importer of ``kind`` (pip-freeze, nvidia-smi-xml, collect-env)."""
    snapshot = parse_report(kind, text, name, captured_at="2026-11-29T12:00:00Z")  # type: ignore[arg-type]
    return finalize(snapshot)


def nvidia_import(fixture: str = A100) -> Snapshot:
    """``envsnap import nvidia-smi-xml`` of a real capture: accelerators.nvidia only."""
    return imported("nvidia-smi-xml", (DATA / fixture).read_text(encoding="utf-8"), fixture)
