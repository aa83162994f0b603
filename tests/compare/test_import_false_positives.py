"""Diff of a probed snapshot against a pasted report of the same machine reports no phantom changes."""

from __future__ import annotations

from envsnap.compare.diff import diff, same_value
from envsnap.importers.auto import parse_auto
from envsnap.snapshot.finalize import finalize
from envsnap.snapshot.model import (
    Accelerators,
    Frameworks,
    Host,
    Meta,
    NvidiaDevice,
    NvidiaInfo,
    Origin,
    Package,
    PythonEnv,
    Snapshot,
    TorchInfo,
)

NOW = "2026-01-01T00:00:00Z"

REPORT = """\
PyTorch version: 2.4.1+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: Debian GNU/Linux 12 (bookworm) (x86_64)
Libc version: glibc-2.36

Python version: 3.11.2 (main, Mar 13 2023, 12:18:29) [GCC 12.2.0] (64-bit runtime)
Is CUDA available: True
GPU models and configuration: GPU 0: NVIDIA A10G
Nvidia driver version: 535.104.05

CPU:
Model name: AMD EPYC 7R32

Versions of relevant libraries:
[pip3] numpy==1.26.4
[pip3] torch==2.4.1
"""


def _live() -> Snapshot:
    """What the probes record on that machine: more fields, and some written another way."""
    return finalize(
        Snapshot(
            schema=2,
            meta=Meta(envsnap_version="x", captured_at=NOW, origin=Origin(kind="probe")),
            host=Host(
                status="ok",
                hostname="gpu01",
                os_name="Debian GNU/Linux",
                os_version="12",
                os_id="debian",
                kernel="6.1.0-18-cloud-amd64",
                arch="x86_64",
                libc="glibc 2.36",
                cpu_model="AMD EPYC 7R32",
                cpu_logical_cores=16,
            ),
            python=PythonEnv(
                status="ok", version="3.11.2", implementation="CPython", executable="/usr/bin/python3"
            ),
            packages=(
                Package(name="numpy", version="1.26.4", installer="pip"),
                Package(name="pip", version="23.0.1", installer="pip"),
                Package(name="setuptools", version="66.1.1", installer="pip"),
                Package(name="torch", version="2.4.1", installer="pip", requires=("filelock",)),
                Package(name="wheel", version="0.38.4", installer="pip"),
            ),
            accelerators=Accelerators(
                nvidia=NvidiaInfo(
                    status="ok",
                    source="nvml",
                    driver_version="535.104.05",
                    nvml_version="12.535.104.05",
                    cuda_driver_version="12.2",
                    devices=(
                        NvidiaDevice(
                            index=0,
                            name="NVIDIA A10G",
                            uuid="GPU-1",
                            pci_bus_id="0000:00:1E.0",
                            compute_capability="8.6",
                        ),
                    ),
                )
            ),
            frameworks=Frameworks(
                torch=TorchInfo(status="ok", version="2.4.1+cu121", cuda="12.1", cudnn="90100", debug=False)
            ),
        )
    )


def test_live_vs_import_of_the_same_machine_has_no_changes() -> None:
    imported = finalize(parse_auto(REPORT, "report.txt", captured_at=NOW))
    assert diff(_live(), imported) == ()
    assert diff(imported, _live()) == ()


def test_a_real_difference_still_shows() -> None:
    imported = finalize(parse_auto(REPORT.replace("535.104.05", "550.54.15"), "r.txt", captured_at=NOW))
    changes = diff(_live(), imported)
    assert [(c.path, c.old, c.new) for c in changes] == [
        ("accelerators.nvidia.driver_version", "535.104.05", "550.54.15")
    ]


def test_pip_freeze_leaving_out_pip_setuptools_wheel_is_no_removal() -> None:
    frozen = finalize(parse_auto("numpy==1.26.4\ntorch==2.4.1\n", "freeze.txt", captured_at=NOW))
    changes = diff(_live(), frozen)
    assert changes == ()
    dropped = finalize(parse_auto("numpy==1.26.4\nsix==1.16.0\n", "freeze.txt", captured_at=NOW))
    paths = {(c.path, c.kind) for c in diff(_live(), dropped)}
    assert paths == {("packages[torch]", "removed"), ("packages[six]", "added")}


def test_values_written_two_ways() -> None:
    assert same_value("host.libc", "glibc 2.36", "glibc-2.36")
    assert same_value("host.os_name", "Ubuntu", "Ubuntu 22.04.4 LTS")
    assert not same_value("host.os_name", "Ubuntu", "Debian GNU/Linux")
    assert not same_value("host.libc", "glibc 2.36", "glibc 2.35")
    assert not same_value("frameworks.torch.version", "2.1.0+cu121", "2.1.0-cu121")
