"""Small, realistic snapshots built from model classes, for unit tests of pure layers.

Device values come from a real capture (an H100 80GB HBM3 on driver 590.48.01:
linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt, see tests/data/SOURCES.md); the rest from this
development machine (Debian 12, CPython 3.11.7, torch 2.13.0+cpu, CUDA 13.0 toolkit).
"""

from __future__ import annotations

from typing import Any

import msgspec

from envsnap.snapshot.model import (
    SCHEMA_VERSION,
    Accelerators,
    CudaToolkit,
    Environment,
    Frameworks,
    Host,
    Meta,
    NvidiaDevice,
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


def make_snapshot(**overrides: Any) -> Snapshot:
    """A probed-looking snapshot of a one-H100 host with a CPU torch; override any top-level section."""
    base = Snapshot(
        schema=SCHEMA_VERSION,
        meta=Meta(envsnap_version="0.1.0", captured_at="2026-11-29T12:00:00Z", origin=Origin(kind="probe")),
        host=Host(
            status="ok",
            hostname="gpu-node-01",
            os_name="Debian GNU/Linux",
            os_version="12 (bookworm)",
            os_id="debian",
            kernel="6.1.0-26-amd64",
            arch="x86_64",
            libc="glibc-2.36",
            cpu_model="AMD EPYC 7J13 64-Core Processor",
            cpu_physical_cores=2,
            cpu_logical_cores=2,
            memory_total_bytes=25_769_803_776,
            slurm=False,
            wsl=False,
        ),
        python=PythonEnv(
            status="ok",
            version="3.11.7",
            implementation="CPython",
            executable="/home/alice/project/.venv/bin/python",
            prefix="/home/alice/project/.venv",
            base_prefix="/root/.pyenv/versions/3.11.7",
            env_kind="venv",
            env_name=".venv",
        ),
        packages=(
            Package(
                name="torch",
                version="2.13.0+cpu",
                installer="pip",
                source=PackageSource(kind="index"),
                requires=("filelock", "typing-extensions>=4.10.0", "sympy>=1.13.3"),
                top_level=("torch", "torchgen", "functorch"),
            ),
            Package(name="filelock", version="3.20.0", installer="pip", source=PackageSource(kind="index")),
            Package(
                name="sympy",
                version="1.14.0",
                installer="pip",
                source=PackageSource(kind="index"),
                requires=("mpmath<1.4,>=1.1.0",),
            ),
            Package(name="mpmath", version="1.3.0", installer="pip", source=PackageSource(kind="index")),
            Package(
                name="typing_extensions",
                version="4.15.0",
                installer="pip",
                source=PackageSource(kind="index"),
            ),
        ),
        environment=Environment(status="ok", variables={"CUDA_HOME": "/usr/local/cuda-13.0"}),
        accelerators=Accelerators(
            nvidia=NvidiaInfo(
                status="ok",
                source="nvml",
                driver_version="590.48.01",
                cuda_driver_version="13.1",
                devices=(
                    NvidiaDevice(
                        index=0,
                        name="NVIDIA H100 80GB HBM3",
                        uuid="GPU-00000000-0000-0000-0000-000000000000",
                        serial="0000000000000",
                        pci_bus_id="00000000:00:09.0",
                        compute_capability="9.0",
                        memory_total_bytes=81559 * 1024 * 1024,
                    ),
                ),
            ),
        ),
        toolkits=Toolkits(
            cuda=CudaToolkit(status="ok", nvcc_version="13.0.88", version="13.0", path="/usr/local/cuda-13.0")
        ),
        frameworks=Frameworks(
            torch=TorchInfo(
                status="ok",
                version="2.13.0+cpu",
                debug=False,
                arch_list=(),
                available=TorchAvailability(cuda=False, xpu=False, mps=False),
            )
        ),
    )
    return msgspec.structs.replace(base, **overrides) if overrides else base
