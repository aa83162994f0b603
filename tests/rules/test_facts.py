"""Snapshot accessors: compute capability from names, torch's version and variant, Windows hosts."""

from __future__ import annotations

import pytest
from packaging.version import Version

from envsnap.rules import arch, facts
from envsnap.snapshot.model import Host, NvidiaDevice
from tests.rules.conftest import accelerators, package, snapshot, torch
from tests.rules.fixtures import P100, RTX3080, T4, V100S_8X, nvidia_xml


@pytest.mark.parametrize(
    ("capture", "cc"),
    [(V100S_8X, "7.0"), (P100, "6.0"), (T4, "7.5"), (RTX3080, "8.6")],
)
def test_compute_capability_from_the_name_nvidia_smi_reports(capture: str, cc: str) -> None:
    info, _ = nvidia_xml(capture)  # nvidia-smi's XML has no compute capability
    assert info.devices is not None
    assert facts.compute_capability(info.devices[0]) == (Version(cc), True)


def test_recorded_compute_capability_wins_and_unknown_names_stay_unknown() -> None:
    assert facts.compute_capability(NvidiaDevice(index=0, name="Tesla T4", compute_capability="7.5")) == (
        Version("7.5"),
        False,
    )
    # geforce-gtx-1660-ti capture: the driver calls it "Graphics Device".
    assert facts.compute_capability(NvidiaDevice(index=0, name="Graphics Device")) == (None, False)


def test_arch_rule_on_an_import_without_compute_capability() -> None:
    info, _ = nvidia_xml(P100)
    snap = snapshot(
        accelerators=accelerators(nvidia=info),
        frameworks=torch(
            "2.8.0+cu128", "12.8", arch_list=["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
        ),
    )
    (found,) = arch.cuda_arch(snap)
    assert found.evidence[0].path == "accelerators.nvidia.devices[0].name"
    assert found.evidence[0].value.startswith(
        "Tesla P100-PCIE-16GB (CC 6.0 inferred from the name, matched /"
    )
    assert (
        "rules/data/nvidia_gpus.yaml (https://developer.nvidia.com/cuda-legacy-gpus)"
        in found.evidence[0].value
    )


def test_torch_version_falls_back_to_the_distribution() -> None:
    # collect_env imports record torch's version in packages only.
    snap = snapshot(frameworks=torch("", "12.4"), packages=(package("torch", "2.5.1+cu124"),))
    assert facts.torch_label(snap) == "torch 2.5.1+cu124"
    build = facts.torch_build(snap)
    assert build is not None
    assert (str(build.release), build.variant) == ("2.5.1", "cu124")
    assert facts.torch_label(snapshot(frameworks=torch("", "12.4"))) == "torch"


def test_variant_from_torch_cuda_when_there_is_no_local_label() -> None:
    build = facts.torch_build(snapshot(frameworks=torch("2.4.1", "12.1")))
    assert build is not None
    assert build.variant == "cu121"


def test_windows_from_os_id_or_name() -> None:
    assert facts.is_windows(snapshot(host=Host(status="ok", os_id="windows")))
    assert facts.is_windows(
        snapshot(host=Host(status="ok", os_name="Microsoft Windows 11 Pro (10.0.22631 64-bit)"))
    )
    assert not facts.is_windows(snapshot())
