"""bundled-cuda-wheels-mismatch and companion-version-mismatch."""

from __future__ import annotations

from envsnap.rules import wheels
from envsnap.snapshot.model import Host, Package
from tests.rules.conftest import (
    TORCH_2_14_1_CU130_REQUIRES,
    TORCH_CU128_PINS,
    TORCH_CU128_REQUIRES,
    package,
    snapshot,
)

TORCH_CU130 = package("torch", "2.14.1+cu130", TORCH_2_14_1_CU130_REQUIRES)
CU130_OK = (
    TORCH_CU130,
    package("cuda-toolkit", "13.0.3"),
    package("cuda-bindings", "13.0.3"),
    package("nvidia-cudnn-cu13", "9.24.0.43"),
    package("nvidia-cusparselt-cu13", "0.8.1"),
    package("nvidia-nccl-cu13", "2.30.7"),
    package("nvidia-nvshmem-cu13", "3.4.5"),
)


def _with(packages: tuple[Package, ...], name: str, version: str | None) -> tuple[Package, ...]:
    kept = tuple(p for p in packages if p.name != name)
    return kept if version is None else (*kept, package(name, version))


def test_torch_2_14_with_its_exact_wheels_is_fine() -> None:
    assert list(wheels.bundled_wheels(snapshot(packages=CU130_OK))) == []


def test_an_older_cudnn_than_torch_pins_is_an_error() -> None:
    packages = _with(CU130_OK, "nvidia-cudnn-cu13", "9.17.1.4")
    (found,) = wheels.bundled_wheels(snapshot(packages=packages))
    assert found.id == "bundled-cuda-wheels-mismatch"
    assert found.severity == "error"
    assert "nvidia-cudnn-cu13 9.17.1.4 (torch pins ==9.24.0.43)" in found.title
    assert "pip install 'nvidia-cudnn-cu13==9.24.0.43'" in found.fix


def test_a_newer_minor_is_a_warning_and_a_missing_wheel_an_error() -> None:
    newer = _with(CU130_OK, "nvidia-nccl-cu13", "2.31.0")
    assert [f.severity for f in wheels.bundled_wheels(snapshot(packages=newer))] == ["warning"]
    missing = _with(CU130_OK, "cuda-toolkit", None)
    (found,) = wheels.bundled_wheels(snapshot(packages=missing))
    assert found.severity == "error"
    assert "cuda-toolkit is missing" in found.title
    assert (
        "'cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.0.3'"
        in found.fix
    )


def test_markers_follow_the_snapshot_platform() -> None:
    # On Windows torch's Linux-only pins don't apply, so nothing is missing.
    windows = snapshot(host=Host(status="ok", os_id="windows", arch="AMD64"), packages=(TORCH_CU130,))
    assert list(wheels.bundled_wheels(windows)) == []
    assert list(wheels.bundled_wheels(snapshot(packages=(TORCH_CU130,))))  # Linux: all missing


def test_cu128_pins_several_wrong() -> None:
    packages = (
        package("torch", "2.8.0+cu128", TORCH_CU128_REQUIRES),
        *(package(n, v) for n, v in TORCH_CU128_PINS.items() if n != "nvidia-cublas-cu12"),
        package("nvidia-cublas-cu12", "12.4.5.8"),
    )
    (found,) = wheels.bundled_wheels(snapshot(packages=packages))
    assert found.severity == "error"
    assert "12.4.5.8" in found.title


def test_companion_pinned_to_another_torch() -> None:
    # torchvision 0.19.0's METADATA: "Requires-Dist: torch ==2.4.0".
    packages = (
        package("torch", "2.5.1+cu124"),
        package("torchvision", "0.19.0+cu124", ["numpy", "torch ==2.4.0"]),
    )
    (found,) = wheels.companions(snapshot(packages=packages))
    assert found.id == "companion-version-mismatch"
    assert found.severity == "error"
    assert "torchvision 0.19.0+cu124 requires torch==2.4.0, but torch 2.5.1+cu124 is installed" in found.title
    assert "pip install 'torchvision==0.20.*' --index-url https://download.pytorch.org/whl/cu124" in found.fix


def test_companion_matching_torch_is_fine() -> None:
    # torchvision 0.22.0's METADATA: "Requires-Dist: torch (==2.7.0)"; local labels are ignored by ==.
    packages = (package("torch", "2.7.0+cu126"), package("torchvision", "0.22.0+cu126", ["torch (==2.7.0)"]))
    assert list(wheels.companions(snapshot(packages=packages))) == []


def test_companion_of_another_cuda_variant() -> None:
    minor = (package("torch", "2.5.1+cu124"), package("torchaudio", "2.5.1+cu121", ["torch==2.5.1"]))
    (found,) = wheels.companions(snapshot(packages=minor))
    assert found.severity == "warning"
    assert "CUDA 12.1, torch for CUDA 12.4" in found.title
    major = (package("torch", "2.7.1+cu128"), package("torchvision", "0.22.1+cu118", ["torch==2.7.1"]))
    assert [f.severity for f in wheels.companions(snapshot(packages=major))] == ["error"]
    cpu = (package("torch", "2.7.1+cu128"), package("torchvision", "0.22.1+cpu", ["torch==2.7.1"]))
    (found,) = wheels.companions(snapshot(packages=cpu))
    assert "+cpu, torch is +cu128" in found.title


def test_pairing_table_when_requires_were_not_recorded() -> None:
    # A pip-freeze import has versions only.
    wrong = (package("torch", "2.7.1"), package("torchvision", "0.21.0"))
    (found,) = wheels.companions(snapshot(packages=wrong))
    assert "expected torchvision 0.22.x" in found.title
    right = (package("torch", "2.7.1"), package("torchvision", "0.22.1"), package("torchaudio", "2.7.1"))
    assert list(wheels.companions(snapshot(packages=right))) == []
