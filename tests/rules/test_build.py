"""cpu-only-build-on-gpu-host and build-vendor-mismatch."""

from __future__ import annotations

from envsnap.rules import build
from envsnap.snapshot.model import ExtensionDistribution, Extensions
from tests.rules.conftest import accelerators, amd, nvidia, package, snapshot, torch


def test_cpu_torch_on_h100_host_is_an_error_with_a_cuda_reinstall() -> None:
    snap = snapshot(accelerators=accelerators(nvidia=nvidia("h100", 2)), frameworks=torch("2.13.0+cpu"))
    (found,) = build.cpu_only_build(snap)
    assert found.id == "cpu-only-build-on-gpu-host"
    assert found.severity == "error"
    assert "2× NVIDIA H100 80GB HBM3" in found.title
    # Driver 590.48.01 fully runs CUDA 13.0 but not 13.2 (Table 3: 595.45.04), so cu130 is suggested.
    assert "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cu130" in found.fix
    assert {e.path for e in found.evidence} >= {"frameworks.torch.cuda", "accelerators.nvidia.driver_version"}


def test_cpu_torch_on_old_driver_suggests_a_variant_the_driver_runs() -> None:
    # RTX 3090 capture: driver 525.147.05 runs CUDA 12.0 fully, not 12.1+ (Table 3: 530.30.02).
    snap = snapshot(accelerators=accelerators(nvidia=nvidia("rtx3090")), frameworks=torch("2.4.1+cpu"))
    (found,) = build.cpu_only_build(snap)
    assert "--index-url https://download.pytorch.org/whl/cu118" in found.fix


def test_cpu_torch_on_amd_host_suggests_rocm() -> None:
    snap = snapshot(accelerators=accelerators(amd=amd("mi210")), frameworks=torch("2.6.0+cpu"))
    (found,) = build.cpu_only_build(snap)
    assert found.severity == "error"
    assert "https://download.pytorch.org/whl/rocm6.2.4" in found.fix


def test_cpu_torch_without_gpu_or_with_cuda_build_is_fine() -> None:
    assert (
        list(build.cpu_only_build(snapshot(accelerators=accelerators(), frameworks=torch("2.13.0+cpu"))))
        == []
    )
    cuda = snapshot(
        accelerators=accelerators(nvidia=nvidia("h100")), frameworks=torch("2.14.1+cu130", "13.0")
    )
    assert list(build.cpu_only_build(cuda)) == []
    rocm = snapshot(
        accelerators=accelerators(amd=amd("mi210")), frameworks=torch("2.6.0+rocm6.2.4", hip="6.2.41133")
    )
    assert list(build.cpu_only_build(rocm)) == []


def test_cuda_build_on_amd_only_host() -> None:
    snap = snapshot(accelerators=accelerators(amd=amd("mi100", 4)), frameworks=torch("2.6.0+cu124", "12.4"))
    found = list(build.vendor_mismatch(snap))
    assert [f.severity for f in found] == ["error"]
    assert "only has AMD GPUs" in found[0].title
    assert "rocm6.2.4" in found[0].fix


def test_rocm_build_on_nvidia_only_host() -> None:
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("a100")),
        frameworks=torch("2.5.1+rocm6.2", hip="6.2.41133-dd7f95766"),
    )
    found = list(build.vendor_mismatch(snap))
    assert len(found) == 1
    assert "only has NVIDIA GPUs" in found[0].title


def test_cuda_only_packages_in_a_rocm_environment() -> None:
    snap = snapshot(
        accelerators=accelerators(amd=amd("mi210")),
        frameworks=torch("2.6.0+rocm6.2.4", hip="6.2.41133"),
        packages=(
            package("nvidia-ml-py", "12.560.30"),  # NVML bindings: harmless, not reported
            package("nvidia-cudnn-cu12", "9.1.0.70"),
            package("onnxruntime-gpu", "1.22.0"),
            package("jax-cuda12-plugin", "0.6.0"),
        ),
        extensions=Extensions(
            status="ok",
            distributions=(
                ExtensionDistribution(
                    name="flash-attn", vendors=("cuda",), libraries=("libcudart.so.12",), files=1
                ),
            ),
        ),
    )
    (found,) = build.vendor_mismatch(snap)
    assert found.severity == "warning"
    assert "nvidia-cudnn-cu12" in found.title
    assert "nvidia-ml-py" not in found.title
    assert "pip uninstall nvidia-cudnn-cu12 onnxruntime-gpu jax-cuda12-plugin" in found.fix
    assert any(e.path == "extensions.distributions[flash-attn].libraries" for e in found.evidence)


def test_nvidia_wheels_on_an_nvidia_host_are_not_a_vendor_mismatch() -> None:
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("h100")),
        frameworks=torch("2.14.1+cu130", "13.0"),
        packages=(package("nvidia-cudnn-cu13", "9.24.0.43"),),
    )
    assert list(build.vendor_mismatch(snap)) == []


# microsoft/WSL#8102: a ROCm torchvision beside a CUDA torch, on an NVIDIA GPU (lines as pasted).
_WSL_8102 = """PyTorch version: 1.10.2+cu113
Is debug build: False
CUDA used to build PyTorch: 11.3
ROCM used to build PyTorch: N/A

OS: Ubuntu 20.04.4 LTS (x86_64)
Is CUDA available: False
CUDA runtime version: 11.4.152
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3080 Laptop GPU
Nvidia driver version: 511.79
cuDNN version: Could not collect
HIP runtime version: N/A
MIOpen runtime version: N/A

Versions of relevant libraries:
[pip3] numpy==1.22.2
[pip3] torch==1.10.2+cu113
[pip3] torchvision==0.11.3+rocm4.2
"""


def test_companion_built_for_the_other_vendor_is_a_vendor_mismatch_reported_once() -> None:
    from envsnap.importers.auto import parse_auto
    from envsnap.rules import wheels

    snap = parse_auto(_WSL_8102, "wsl-8102.txt", captured_at="2026-01-01T00:00:00Z")
    (found,) = build.vendor_mismatch(snap)
    assert found.severity == "error"
    assert "torchvision 0.11.3+rocm4.2 is built for ROCm" in found.title
    assert "only has NVIDIA GPUs" in found.title
    # companion-version-mismatch does not report the same torchvision a second time
    assert [f.title for f in wheels.companions(snap)] == []


def test_companion_vendor_is_not_judged_without_a_gpu_or_on_its_own_vendor() -> None:
    no_gpu = snapshot(
        frameworks=torch("1.10.2+cu113", "11.3"),
        packages=(package("torch", "1.10.2+cu113"), package("torchvision", "0.11.3+rocm4.2")),
    )
    assert list(build.vendor_mismatch(no_gpu)) == []
    rocm_host = snapshot(
        accelerators=accelerators(amd=amd("mi210")),
        frameworks=torch("2.6.0+rocm6.2.4", hip="6.2.41133"),
        packages=(package("torch", "2.6.0+rocm6.2.4"), package("torchvision", "0.21.0+rocm6.2.4")),
    )
    assert list(build.vendor_mismatch(rocm_host)) == []
    cuda_vision_on_amd = snapshot(
        accelerators=accelerators(amd=amd("mi210")),
        frameworks=torch("2.6.0+rocm6.2.4", hip="6.2.41133"),
        packages=(package("torch", "2.6.0+rocm6.2.4"), package("torchvision", "0.21.0+cu124")),
    )
    (found,) = build.vendor_mismatch(cuda_vision_on_amd)
    assert "built for CUDA but this host only has AMD GPUs" in found.title


def test_a_placeholder_cuda_wheel_under_rocm_is_not_named() -> None:
    """pytorch/pytorch#164346: `[pip3] nvidia-cuda-runtime-cu13==0.0.0a0` (PyPI's name placeholder,
    no library)
    beside a rocm7.0 torch and onnxruntime-gpu; only onnxruntime-gpu is a CUDA-only package there."""
    snap = snapshot(
        frameworks=torch("2.10.0.dev20250929+rocm7.0", hip="7.0"),
        packages=(
            package("nvidia-cuda-runtime-cu13", "0.0.0a0"),
            package("onnxruntime-gpu", "1.23.0"),
            package("torch", "2.10.0.dev20250929+rocm7.0"),
        ),
    )
    (found,) = build.vendor_mismatch(snap)
    assert "onnxruntime-gpu" in found.title
    assert "nvidia-cuda-runtime-cu13" not in found.title
    only_placeholder = snapshot(
        frameworks=torch("2.10.0.dev20250929+rocm7.0", hip="7.0"),
        packages=(package("nvidia-cuda-runtime-cu13", "0.0.0a0"),),
    )
    assert list(build.vendor_mismatch(only_placeholder)) == []
