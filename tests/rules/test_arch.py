"""arch-not-in-build: CUDA compute capabilities, the cuDNN 9.11 floor, ROCm gfx targets."""

from __future__ import annotations

from typing import Any

import pytest

from envsnap.rules import arch
from envsnap.snapshot.model import Finding
from tests.rules.conftest import accelerators, amd, env, nvidia, package, snapshot, torch

# torch.cuda.get_arch_list() of real wheels (compat-rules.md B2.2).
CU124_2_4 = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
CU124_2_5 = [*CU124_2_4, "compute_90"]
CU128_2_8 = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
CU128_2_7 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"]


def _cuda(preset: str, version: str, cuda: str, arch_list: list[str] | None, **kw: Any) -> list[Finding]:
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia(preset)),
        frameworks=torch(version, cuda, arch_list=arch_list),
        **kw,
    )
    return list(arch.cuda_arch(snap))


def test_rtx_5090_with_a_cu124_build_has_no_kernels() -> None:
    (found,) = _cuda("rtx5090", "2.4.1+cu124", "12.4", CU124_2_4)
    assert found.id == "arch-not-in-build"
    assert found.severity == "error"
    assert "NVIDIA GeForce RTX 5090 (sm_120)" in found.title
    # The 5090 needs a cu128 build: torch 2.4 has none, 2.7 is the first, and driver 570.124.04 runs 12.8.
    assert (
        "torch 2.7 does: `pip install 'torch==2.7.*' --index-url https://download.pytorch.org/whl/cu128`"
        in found.fix
    )


def test_rtx_5090_with_cu124_plus_ptx_is_reachable_only_by_jit() -> None:
    (found,) = _cuda("rtx5090", "2.5.1+cu124", "12.4", CU124_2_5)
    assert found.severity == "warning"
    assert "only PTX JIT" in found.title


def test_pascal_p100_with_a_2_8_cu128_build() -> None:
    (found,) = _cuda("p100", "2.8.0+cu128", "12.8", CU128_2_8)
    assert found.severity == "error"
    assert "sm_60" in found.title
    # The capture's driver 510.47.03 runs no CUDA 12 build at all.
    assert "No published build of torch 2.8.0 or newer covers this GPU" in found.fix


def test_pascal_fix_names_the_cu126_build_when_the_driver_runs_it() -> None:
    # Same P100 on the 595.71.05 driver of the RTX 2080 SUPER capture: cu126 still has sm_60.
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("p100", driver="595.71.05")),
        frameworks=torch("2.8.0+cu128", "12.8", arch_list=CU128_2_8),
    )
    (found,) = arch.cuda_arch(snap)
    assert "pip install torch==2.8.0 --index-url https://download.pytorch.org/whl/cu126" in found.fix


def test_covered_devices_are_silent() -> None:
    assert _cuda("h100", "2.4.1+cu124", "12.4", CU124_2_4) == []
    assert _cuda("l40s", "2.8.0+cu128", "12.8", CU128_2_8) == []  # sm_89 runs sm_86 cubins
    assert _cuda("rtx5090", "2.7.1+cu128", "12.8", CU128_2_7) == []
    assert _cuda("v100s", "2.8.0+cu128", "12.8", CU128_2_8) == []


def test_empty_arch_list_falls_back_to_the_published_wheel() -> None:
    # CUDA unavailable at probe time (driver too old): torch reports [] but the wheel is known.
    (found,) = _cuda("p100", "2.7.1+cu128", "12.8", [])
    assert found.severity == "error"
    assert found.evidence[1].path == "published arch list of torch 2.7.1+cu128"
    assert "sm_75" in found.evidence[1].value


def test_empty_arch_list_of_an_unknown_wheel_does_not_guess() -> None:
    assert _cuda("p100", "2.99.0+cu999", "99.9", []) == []


@pytest.mark.parametrize(
    ("cudnn", "fires"),
    [("91100", True), ("9.24.0", True), ("91002", False), ("8907", False)],
)
def test_cudnn_9_11_drops_pre_turing_gpus(cudnn: str, fires: bool) -> None:
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("v100s")),
        frameworks=torch("2.11.0+cu128", "12.8", cudnn=cudnn),
    )
    found = list(arch.cudnn_floor(snap))
    assert bool(found) is fires
    if fires:
        assert found[0].severity == "error"
        assert "CC 7.0 < 7.5" in found[0].title
        assert "pip install torch==2.11.0 --index-url https://download.pytorch.org/whl/cu126" in found[0].fix


def test_cudnn_floor_reads_the_wheel_when_torch_did_not_say() -> None:
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("p100")),
        frameworks=torch("2.11.0+cu130", "13.0"),
        packages=(package("nvidia-cudnn-cu13", "9.17.1.4"),),
    )
    (found,) = arch.cudnn_floor(snap)
    assert found.evidence[0].path == "packages[nvidia-cudnn-cu13].version"


def test_cudnn_floor_spares_turing_and_newer() -> None:
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("t4")),
        frameworks=torch("2.11.0+cu128", "12.8", cudnn="91701"),
    )
    assert list(arch.cudnn_floor(snap)) == []


def test_rocm_build_without_code_for_the_gpu() -> None:
    snap = snapshot(
        accelerators=accelerators(amd=amd("rx6700xt")),
        frameworks=torch(
            "2.6.0+rocm6.2.4", hip="6.2.41133", arch_list=["gfx900", "gfx906", "gfx90a", "gfx1030", "gfx1100"]
        ),
    )
    (found,) = arch.rocm_arch(snap)
    assert found.severity == "error"
    assert "gfx1031" in found.title


def test_rocm_build_with_code_for_the_gpu_or_an_override_is_silent() -> None:
    listed = ["gfx90a:sramecc+:xnack-", "gfx942"]
    ok = snapshot(
        accelerators=accelerators(amd=amd("mi210")),
        frameworks=torch("2.6.0+rocm6.2.4", hip="6.2.41133", arch_list=listed),
    )
    assert list(arch.rocm_arch(ok)) == []
    overridden = snapshot(
        accelerators=accelerators(amd=amd("rx6700xt")),
        frameworks=torch("2.6.0+rocm6.2.4", hip="6.2.41133", arch_list=["gfx1030", "gfx1100"]),
        environment=env(HSA_OVERRIDE_GFX_VERSION="10.3.0"),
    )
    assert list(arch.rocm_arch(overridden)) == []


def test_rocm_arch_list_falls_back_to_the_published_list() -> None:
    # MI50 (gfx906) with a ROCm 5.7 wheel: gfx906 is in PYTORCH_ROCM_ARCH of the 5.x wheels.
    snap = snapshot(
        accelerators=accelerators(amd=amd("mi50")),
        frameworks=torch("2.2.2+rocm5.7", hip="5.7.31921", arch_list=[]),
    )
    assert list(arch.rocm_arch(snap)) == []
    gfx1031 = snapshot(
        accelerators=accelerators(amd=amd("rx6700xt")), frameworks=torch("2.2.2+rocm5.7", hip="5.7.31921")
    )
    (found,) = arch.rocm_arch(gfx1031)
    assert found.evidence[1].path == "published gfx list of ROCm 5.7 wheels"


@pytest.mark.parametrize(
    ("value", "gfx"),
    [
        ("10.3.0", "gfx1030"),
        ("11.0.0", "gfx1100"),
        ("9.0.10", "gfx90a"),
        ("9.4.2", "gfx942"),
        ("10.3", None),
        ("x", None),
    ],
)
def test_hsa_override_values(value: str, gfx: str | None) -> None:
    assert arch.gfx_of_override(value) == gfx
