"""driver-too-old-for-cuda-build and nvml-driver-library-mismatch."""

from __future__ import annotations

from typing import Any

from envsnap.rules import driver
from envsnap.snapshot.model import Finding, Frameworks, NvidiaInfo, TensorflowInfo
from tests.rules.conftest import accelerators, cuda_toolkit, env, lib, no_nvidia, nvidia, snapshot, torch


def _check(preset: str, torch_version: str, cuda: str, **kw: Any) -> list[Finding]:
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia(preset)), frameworks=torch(torch_version, cuda), **kw
    )
    return list(driver.driver_too_old(snap))


def test_cu130_wheel_on_a_12x_driver_is_an_error() -> None:
    # The classic "pip install torch pulled +cu130 onto a 12.8 driver" (compat-rules.md B1.1).
    (found,) = _check("rtx3060", "2.11.0+cu130", "13.0")
    assert found.id == "driver-too-old-for-cuda-build"
    assert found.severity == "error"
    assert "below the CUDA 13.x minimum 580.65.06" in found.title
    assert "Upgrade the NVIDIA driver to 580.65.06" in found.fix
    assert "pip install torch==2.11.0 --index-url https://download.pytorch.org/whl/cu128" in found.fix


def test_between_family_floor_and_table3_is_a_warning() -> None:
    # H100 capture: driver 590.48.01 is above the 13.x floor but below 13.2 GA's 595.45.04.
    (found,) = _check("h100", "2.13.0+cu132", "13.2")
    assert found.severity == "warning"
    assert "minor-version compatibility" in found.title
    assert "595.45.04" in found.title
    assert "cu130" in found.fix


def test_driver_new_enough_is_silent() -> None:
    assert _check("h100", "2.13.0+cu130", "13.0") == []
    assert _check("l40s", "2.13.0+cu132", "13.2") == []  # 595.80 >= 595.45.04
    assert (
        _check("rtx3060", "2.7.1+cu126", "12.6") == []
    )  # older runtime on newer driver: backward compatible


def test_tensorflow_build_is_checked_too() -> None:
    tf = TensorflowInfo(
        status="ok", version="2.18.0", build_info={"cuda_version": "12.5.1", "is_cuda_build": "True"}
    )
    # Tesla T4 capture: driver 515.105.01 is below the 12.x floor 525.60.13.
    snap = snapshot(accelerators=accelerators(nvidia=nvidia("t4")), frameworks=Frameworks(tensorflow=tf))
    (found,) = driver.driver_too_old(snap)
    assert found.severity == "error"
    assert found.title.startswith("tensorflow 2.18.0 needs CUDA 12.5")
    assert "pip install torch" not in found.fix


def test_without_driver_version_the_cuda_ceiling_decides() -> None:
    info = NvidiaInfo(status="ok", cuda_driver_version="12.2")  # A100 capture's ceiling, driver unknown
    snap = snapshot(accelerators=accelerators(nvidia=info), frameworks=torch("2.7.1+cu128", "12.8"))
    (found,) = driver.driver_too_old(snap)
    assert found.severity == "warning"
    assert "supports CUDA up to 12.2" in found.title
    info13 = NvidiaInfo(status="ok", cuda_driver_version="12.2")
    snap13 = snapshot(accelerators=accelerators(nvidia=info13), frameworks=torch("2.9.0+cu130", "13.0"))
    assert [f.severity for f in driver.driver_too_old(snap13)] == ["error"]


def test_forward_compat_on_a_datacenter_gpu_downgrades_to_a_warning() -> None:
    # A100 capture (535.54.03, 12.x branch) running a cu130 build through cuda-compat-13-0.
    compat_dir = "/usr/local/cuda-13.0/compat"
    libs = (lib("libcuda.so.1", f"{compat_dir}/libcuda.so.580.65.06", "compat"),)
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("a100")),
        frameworks=torch("2.11.0+cu130", "13.0", loaded_libraries=libs),
        environment=env(LD_LIBRARY_PATH=compat_dir),
    )
    (found,) = driver.driver_too_old(snap)
    assert found.severity == "warning"
    assert "forward-compatibility package (compat libcuda 580.65.06)" in found.title
    assert found.source == "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html"


def test_forward_compat_does_not_rescue_a_geforce() -> None:
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("rtx3090")),
        frameworks=torch("2.11.0+cu130", "13.0"),
        environment=env(LD_LIBRARY_PATH="/usr/local/cuda-13.0/compat:/usr/lib"),
    )
    (found,) = driver.driver_too_old(snap)
    assert found.severity == "error"
    assert "only on data-center GPUs" in found.fix


def test_windows_uses_the_windows_driver_column() -> None:
    from envsnap.snapshot.model import Host

    host = Host(status="ok", os_id="windows", arch="AMD64")
    # RTX 2080 WDDM capture: Windows driver 516.59; CUDA 12.x needs >= 527.41 on Windows.
    info = NvidiaInfo(status="ok", driver_version="516.59", cuda_driver_version="11.7")
    snap = snapshot(
        host=host, accelerators=accelerators(nvidia=info), frameworks=torch("2.4.1+cu121", "12.1")
    )
    (found,) = driver.driver_too_old(snap)
    assert found.severity == "error"
    assert "527.41" in found.title


def test_library_version_mismatch_flag() -> None:
    info = NvidiaInfo(
        status="failed", reason="NVML: Driver/library version mismatch", library_version_mismatch=True
    )
    (found,) = driver.nvml_mismatch(snapshot(accelerators=accelerators(nvidia=info)))
    assert found.id == "nvml-driver-library-mismatch"
    assert found.severity == "error"
    assert "modprobe nvidia" in found.fix


def test_kernel_module_differs_from_user_space() -> None:
    info = nvidia(
        "rtx3080", kernel_module_version="570.124.04"
    )  # libraries 595.58.03 after an unrebooted upgrade
    (found,) = driver.nvml_mismatch(snapshot(accelerators=accelerators(nvidia=info)))
    assert "kernel module 570.124.04, libraries 595.58.03" in found.title


def test_matching_driver_pieces_are_silent() -> None:
    info = nvidia("rtx3080", kernel_module_version="595.58.03")
    assert list(driver.nvml_mismatch(snapshot(accelerators=accelerators(nvidia=info)))) == []
    assert list(driver.nvml_mismatch(snapshot(accelerators=accelerators()))) == []


def test_toolkit_newer_than_the_driver_runs_is_a_warning() -> None:
    # The 8x V100S capture's driver 460.73.01 (CUDA <= 11.2) next to this machine's CUDA 13.0 toolkit.
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("v100s", driver="460.73.01", cuda_driver_version="11.2")),
        toolkits=cuda_toolkit("13.0", "13.0.88", "/usr/local/cuda-13.0"),
    )
    (found,) = driver.driver_too_old_for_toolkit(snap)
    assert found.id == "driver-too-old-for-cuda-toolkit"
    assert found.severity == "warning"
    assert found.title == (
        "the CUDA 13.0 toolkit builds programs driver 460.73.01 cannot run "
        "(CUDA 13.x needs driver 580.65.06 or newer)"
    )
    assert "(CUDA 11.2 or older)" in found.fix


def test_toolkit_the_driver_runs_or_no_driver_is_silent() -> None:
    toolkit = cuda_toolkit("12.4", "12.4.131", "/usr/local/cuda-12.4")
    # H100 capture: driver 590.48.01 runs every 12.x and 13.x toolkit up to 13.1.
    assert (
        list(
            driver.driver_too_old_for_toolkit(
                snapshot(accelerators=accelerators(nvidia=nvidia("h100")), toolkits=toolkit)
            )
        )
        == []
    )
    # Minor-version compatibility: 12.8 programs run from the 12.x floor 525.60.13 (RTX 3090: 525.147.05).
    newer = cuda_toolkit("12.8", "12.8.93", "/usr/local/cuda-12.8")
    assert (
        list(
            driver.driver_too_old_for_toolkit(
                snapshot(accelerators=accelerators(nvidia=nvidia("rtx3090")), toolkits=newer)
            )
        )
        == []
    )
    assert (
        list(
            driver.driver_too_old_for_toolkit(
                snapshot(accelerators=accelerators(nvidia=no_nvidia()), toolkits=toolkit)
            )
        )
        == []
    )
