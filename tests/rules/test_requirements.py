"""Requires-Dist evaluation for the snapshot's platform, not the machine running envsnap."""

from __future__ import annotations

from envsnap.rules.requirements import dependencies, marker_environment, satisfied
from envsnap.snapshot.model import Host, PythonEnv
from tests.rules.conftest import TORCH_2_14_1_CU130_REQUIRES, package, snapshot


def test_marker_environment_from_the_snapshot() -> None:
    mac = snapshot(
        host=Host(status="ok", os_id="macos", arch="arm64"), python=PythonEnv(status="ok", version="3.12.4")
    )
    environment = marker_environment(mac)
    assert (environment["platform_system"], environment["sys_platform"], environment["platform_machine"]) == (
        "Darwin",
        "darwin",
        "arm64",
    )
    assert environment["python_version"] == "3.12"
    assert marker_environment(snapshot(host=None, python=None))["platform_system"] == "Linux"


def test_only_applicable_base_requirements() -> None:
    torch = package("torch", "2.14.1+cu130", TORCH_2_14_1_CU130_REQUIRES)
    linux = [d.requirement.name for d in dependencies(torch, marker_environment(snapshot()))]
    assert "nvidia-cudnn-cu13" in linux
    assert "filelock" in linux
    py315 = marker_environment(snapshot(python=PythonEnv(status="ok", version="3.15.0")))
    assert "triton" not in [d.requirement.name for d in dependencies(torch, py315)]
    extras = package("x", "1", ["a; extra == 'gpu'", "not a requirement !!", "b; python_version > 'x.y' and"])
    assert list(dependencies(extras, marker_environment(snapshot()))) == []


def test_satisfied_uses_pep440_with_local_labels_and_prereleases() -> None:
    from packaging.requirements import Requirement

    assert satisfied(Requirement("torch==2.4.1"), package("torch", "2.4.1+cu124"))
    assert satisfied(Requirement("jax>=0.6"), package("jax", "0.7.0rc1"))
    assert not satisfied(Requirement("numpy<2"), package("numpy", "2.2.6"))
    assert satisfied(Requirement("weird"), package("weird", "not-a-version"))
