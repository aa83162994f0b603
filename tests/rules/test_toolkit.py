"""nvcc-torch-cuda-mismatch and cuda-toolkit-without-driver."""

from __future__ import annotations

from envsnap.rules import toolkit
from envsnap.snapshot.model import CudaToolkit, Toolkits
from tests.rules.conftest import accelerators, cuda_toolkit, no_nvidia, nvidia, snapshot, torch

# This development machine's toolkit: /usr/local/cuda-13.0, nvcc release 13.0, V13.0.88.
CUDA_13_0 = cuda_toolkit("13.0", "13.0.88", "/usr/local/cuda-13.0")


def test_major_mismatch_is_an_error() -> None:
    snap = snapshot(toolkits=CUDA_13_0, frameworks=torch("2.8.0+cu128", "12.8"))
    (found,) = toolkit.nvcc_mismatch(snap)
    assert found.id == "nvcc-torch-cuda-mismatch"
    assert found.severity == "error"
    assert "nvcc is CUDA 13.0 but torch was built with CUDA 12.8" in found.title
    assert "/usr/local/cuda-12.8" in found.fix


def test_minor_mismatch_is_info_and_mentions_deepspeed() -> None:
    snap = snapshot(
        toolkits=cuda_toolkit("12.4", "12.4.131", "/usr/local/cuda-12.4"),
        frameworks=torch("2.7.1+cu126", "12.6"),
    )
    (found,) = toolkit.nvcc_mismatch(snap)
    assert found.severity == "info"
    assert "DeepSpeed" in found.fix
    assert "refuses" not in found.title
    cuda13 = snapshot(toolkits=CUDA_13_0, frameworks=torch("2.13.0+cu132", "13.2"))
    (found13,) = toolkit.nvcc_mismatch(cuda13)
    assert found13.severity == "info"
    assert "DeepSpeed refuses this pair" in found13.title


def test_same_cuda_or_cpu_torch_or_no_toolkit_is_silent() -> None:
    assert (
        list(toolkit.nvcc_mismatch(snapshot(toolkits=CUDA_13_0, frameworks=torch("2.9.0+cu130", "13.0"))))
        == []
    )
    assert list(toolkit.nvcc_mismatch(snapshot(toolkits=CUDA_13_0, frameworks=torch("2.13.0+cpu")))) == []
    skipped = Toolkits(cuda=CudaToolkit(status="skipped", reason="no nvcc on PATH and no /usr/local/cuda*"))
    assert (
        list(toolkit.nvcc_mismatch(snapshot(toolkits=skipped, frameworks=torch("2.9.0+cu128", "12.8")))) == []
    )


def test_nvcc_version_is_used_when_major_minor_is_missing() -> None:
    tk = Toolkits(cuda=CudaToolkit(status="ok", nvcc_version="11.8.89", path="/usr/local/cuda-11.8"))
    (found,) = toolkit.nvcc_mismatch(snapshot(toolkits=tk, frameworks=torch("2.4.1+cu124", "12.4")))
    assert found.evidence[0].path == "toolkits.cuda.nvcc_version"


def test_toolkit_without_driver_is_info() -> None:
    snap = snapshot(toolkits=CUDA_13_0, accelerators=accelerators(nvidia=no_nvidia()))
    (found,) = toolkit.toolkit_without_driver(snap)
    assert found.id == "cuda-toolkit-without-driver"
    assert found.severity == "info"
    assert "CUDA toolkit 13.0" in found.title
    assert "fine for building, not for running" in found.title
    assert found.evidence[-1].value == "NVIDIA driver not installed (libnvidia-ml.so.1 not found)"


def test_toolkit_with_driver_or_a_failed_driver_is_not_this_rule() -> None:
    assert (
        list(
            toolkit.toolkit_without_driver(
                snapshot(toolkits=CUDA_13_0, accelerators=accelerators(nvidia=nvidia("h100")))
            )
        )
        == []
    )
    from envsnap.snapshot.model import NvidiaInfo

    broken = NvidiaInfo(
        status="failed", reason="NVML: Driver/library version mismatch", library_version_mismatch=True
    )
    assert (
        list(
            toolkit.toolkit_without_driver(
                snapshot(toolkits=CUDA_13_0, accelerators=accelerators(nvidia=broken))
            )
        )
        == []
    )
    assert list(toolkit.toolkit_without_driver(snapshot(accelerators=accelerators()))) == []
