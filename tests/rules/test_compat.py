"""Compatibility arithmetic: driver minimums, binary compatibility, wheel arch lists, fix choice."""

from __future__ import annotations

import pytest
from packaging.version import Version

from envsnap.rules import compat


def test_driver_needs_table3_and_family_floor() -> None:
    needs = compat.driver_needs("12.4")
    assert needs is not None
    assert (needs.floor_text, needs.full_text) == ("525.60.13", "550.54.14")  # 12.4 GA, not Update 1
    windows = compat.driver_needs("12.4", windows=True)
    assert windows is not None
    assert windows.full_text == "551.61"
    unbundled = compat.driver_needs("13.4")
    assert unbundled is not None
    assert unbundled.full is None
    assert unbundled.floor_text == "580.65.06"
    assert compat.driver_needs("garbage") is None


@pytest.mark.parametrize(
    ("code", "device", "torch_cuda", "runs"),
    [
        ("8.0", "8.6", None, True),
        ("8.0", "8.9", None, True),
        ("8.0", "8.7", None, False),  # Orin is not a dGPU
        ("8.0", "8.7", "13.2", True),  # ... until CUDA 13.2's SBSA/Jetson unification
        ("7.0", "7.2", "12.8", False),
        ("8.6", "8.0", None, False),
        ("9.0", "10.0", None, False),
        ("10.1", "11.0", None, True),  # sm_101 was renamed sm_110
        ("12.0", "12.1", None, True),
        ("5.3", "5.2", None, False),
        ("13.0", "13.1", None, True),  # not in the table: same major, minor >= code
    ],
)
def test_sass_binary_compatibility(code: str, device: str, torch_cuda: str | None, runs: bool) -> None:
    assert compat.sass_runs_on(code, Version(device), torch_cuda=torch_cuda) is runs


def test_coverage_distinguishes_cubins_ptx_and_arch_specific_targets() -> None:
    assert compat.coverage(["sm_90a"], Version("9.0")) == "sass"
    assert compat.coverage(["sm_90a"], Version("10.0")) is None
    assert compat.coverage(["sm_80", "compute_90"], Version("12.0")) == "ptx"
    assert compat.coverage(["sm_80", "compute_90"], Version("8.9")) == "sass"
    assert compat.coverage(["compute_90"], Version("8.9")) is None


def test_expand_torch_cuda_arch_list() -> None:
    assert compat.expand_arch_list("8.0;9.0;12.0+PTX") == ("sm_80", "sm_90", "sm_120", "compute_120")


def test_wheel_arch_list_lookup() -> None:
    listed = compat.wheel_arch_list(Version("2.8.0"), "cu128", "x86_64")
    assert listed is not None
    assert listed[0][0] == "sm_70"
    arm = compat.wheel_arch_list(Version("2.9.1"), "cu130", "aarch64")
    assert arm is not None
    assert "sm_110" in arm[0]
    assert compat.wheel_arch_list(Version("2.8.0"), "cu999", "x86_64") is None


def test_suggested_variant_respects_driver_and_gpus() -> None:
    h100_driver = Version("590.48.1")
    assert (
        compat.suggest_cuda_variant(Version("2.13.0"), driver=h100_driver, devices=[Version("9.0")])
        == "cu130"
    )
    # A P100 (6.0) rules out cu128/cu129 of 2.8, leaving cu126.
    assert (
        compat.suggest_cuda_variant(Version("2.8.0"), driver=h100_driver, devices=[Version("6.0")]) == "cu126"
    )
    assert compat.suggest_cuda_variant(Version("2.8.0"), driver=Version("510.47.3"), devices=[]) is None
    assert compat.suggest_cuda_variant(Version("9.0.0"), driver=h100_driver) is None


def test_newer_release_when_the_installed_one_has_no_build_for_the_gpu() -> None:
    rtx5090, driver = Version("12.0"), Version("570.124.4")
    assert compat.suggest_cuda_variant(Version("2.4.1"), driver=driver, devices=[rtx5090]) is None
    assert compat.suggest_newer_release(Version("2.4.1"), driver=driver, devices=[rtx5090]) == (
        "2.7",
        "cu128",
    )
    assert compat.suggest_newer_release(Version("2.14.1"), driver=driver, devices=[rtx5090]) is None
