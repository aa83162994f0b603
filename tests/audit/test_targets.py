"""Targets are named precisely; vague ones are refused with the forms; target snapshots name theirs."""

from __future__ import annotations

import re

import pytest

from envsnap.audit.target import parse_target, target_from_snapshot
from envsnap.errors import BadInput
from tests.audit.conftest import imported


@pytest.mark.parametrize(
    ("text", "kind", "archs", "version"),
    [
        ("rocm", "rocm", (), None),
        ("rocm:gfx942@6.4", "rocm", ("gfx942",), "6.4"),
        ("ROCm:gfx90a", "rocm", ("gfx90a",), None),
        ("rocm@7.2", "rocm", (), "7.2"),
        ("xpu:pvc", "xpu", ("pvc",), None),
        ("mps", "mps", (), None),
        ("cpu", "cpu", (), None),
        ("cuda:sm_120@12.8", "cuda", ("sm_120",), "12.8"),
        ("cuda:sm_90a", "cuda", ("sm_90a",), None),
    ],
)
def test_precise_forms(text: str, kind: str, archs: tuple[str, ...], version: str | None) -> None:
    target = parse_target(text)
    assert (target.kind, target.archs, target.version) == (kind, archs, version)


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("amd", "rocm[:gfxNNN]"),
        ("nvidia", "cuda:sm_XY"),
        ("cuda", "cuda:sm_XY"),
        ("apple", "mps"),
        ("mi300x", "rocm:gfx942"),
        ("gpu", None),
        ("rocm:mi300", None),
        ("xpu:nonsense", None),
        ("cpu:x86", None),
        ("", None),
        ("\x1b[31mred", None),
    ],
)
def test_vague_targets_are_refused_with_the_forms(text: str, hint: str | None) -> None:
    with pytest.raises(BadInput) as caught:
        parse_target(text)
    message = str(caught.value)
    assert "\n" not in message
    if hint is not None:
        assert "rocm[:gfxNNN][@ROCM_VERSION], xpu[:DEVICE], mps, cpu, cuda:sm_XY[@CUDA_VERSION]" in message
        assert hint in message


def test_rocm_target_snapshot_uses_its_devices_rocm_and_torch() -> None:
    target = target_from_snapshot(imported("collect_env/gen2025_torch2.6_rocm_mi250.txt"), "mi250.yaml")
    assert (target.kind, target.archs, target.version) == ("rocm", ("gfx90a",), "6.2")
    assert target.torch == "2.6.0+rocm6.2.4"
    assert target.devices == ("AMD Instinct MI250X/MI250",)


def test_multi_gpu_nvidia_target_snapshot() -> None:
    snapshot = imported("nvidia/8x-tesla-v100s-pcie-32gb_driver-460.73.01_dtd-v11.xml", "nvidia-smi-xml")
    target = target_from_snapshot(snapshot, "v100.yaml")
    assert (target.kind, target.archs, target.version) == ("cuda", ("sm_70",), "11.2")
    assert len(target.devices) == 8


# ---------------------------------------------------------------------------- #22 item 10


@pytest.mark.parametrize(("spec", "known"), [("rocm:gfx9999", "gfx942"), ("cuda:sm_999", "sm_90")])
def test_a_target_that_does_not_exist_is_refused_naming_the_known_ones(spec: str, known: str) -> None:
    with pytest.raises(BadInput) as refused:
        parse_target(spec)
    message = str(refused.value)
    assert "unknown" in message
    assert known in message
    assert "\n" not in message


def test_cli_exit_2_for_an_unknown_target(capsys: pytest.CaptureFixture[str]) -> None:
    from envsnap.cli import run
    from tests.audit.conftest import project

    assert run(["audit", project("standard_ops"), "--target", "rocm:gfx9999", "--no-env"]) == 2
    assert "gfx942" in capsys.readouterr().err


def test_target_snapshot_suggests_only_builds_its_driver_runs() -> None:
    """An L40S on driver 550 (CUDA 12.4): no cu126/cu128/cu13x torch is suggested for it."""
    from envsnap.audit import audit
    from envsnap.snapshot import store
    from tests.audit.conftest import DATA

    snapshot = store.load(str(DATA / "audit" / "l40s-torch2.14-cu130-source.yaml"))
    target = target_from_snapshot(snapshot, "l40s.yaml")
    assert target.driver == "550.54.14"
    build = next(f for f in audit(None, snapshot, target).findings if f.rule == "framework-build")
    variants = re.findall(r"whl/(cu\d+)", build.replacement)
    assert variants, build.replacement
    assert all(int(v[2:]) <= 124 for v in variants), build.replacement


def test_envsnaps_own_nvml_dependency_is_not_the_projects() -> None:
    import msgspec

    from envsnap.audit import audit
    from envsnap.audit.layers import packages
    from envsnap.snapshot import store
    from envsnap.snapshot.model import Package
    from tests.audit.conftest import DATA

    base = store.load(str(DATA / "audit" / "l40s-torch2.14-cu130-source.yaml"))
    mine = (Package(name="envsnap", version="1.0"), Package(name="nvidia-ml-py", version="13.0"))
    snapshot = msgspec.structs.replace(base, packages=mine)
    assert [f for f in packages(snapshot, parse_target("rocm")) if "nvidia-ml-py" in f.code] == []
    alone = msgspec.structs.replace(base, packages=mine[1:])
    assert any("nvidia-ml-py" in f.code for f in packages(alone, parse_target("rocm")))
    assert not any("nvidia-ml-py" in f.code for f in audit(None, snapshot, parse_target("rocm")).findings)
