"""The engine: registration, ordering, crash isolation, and the ids other tools key on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import envsnap.rules as rules
from envsnap.rules.base import REGISTRY, Rule, worst
from envsnap.snapshot.model import Finding, Snapshot
from tests.rules.conftest import accelerators, cuda_toolkit, env, nvidia, snapshot, torch

REQUIRED_IDS = {
    "cpu-only-build-on-gpu-host",
    "driver-too-old-for-cuda-build",
    "arch-not-in-build",
    "build-vendor-mismatch",
    "rocm-gfx-unsupported",
    "nvml-driver-library-mismatch",
    "nvcc-torch-cuda-mismatch",
    "ld-library-path-shadowing",
    "bundled-cuda-wheels-mismatch",
    "companion-version-mismatch",
    "duplicate-distributions",
    "broken-requirements",
    "cuda-visible-devices-hides-gpus",
    "cuda-toolkit-without-driver",
    "gpu-health",
}


def test_every_required_id_has_a_rule() -> None:
    assert set(rules.RULE_IDS) >= REQUIRED_IDS


def test_an_empty_snapshot_has_no_findings() -> None:
    assert rules.evaluate(snapshot()) == ()


def test_findings_are_sorted_errors_first_and_carry_declared_ids() -> None:
    # P100 capture (510.47.03) with a cu128 torch, CUDA 13 toolkit, and CUDA_VISIBLE_DEVICES hiding it.
    snap = snapshot(
        accelerators=accelerators(nvidia=nvidia("p100")),
        frameworks=torch("2.8.0+cu128", "12.8", arch_list=["sm_70", "sm_80", "sm_90"]),
        toolkits=cuda_toolkit("13.0", "13.0.88", "/usr/local/cuda-13.0"),
        environment=env(CUDA_VISIBLE_DEVICES="1"),
    )
    found = rules.evaluate(snap)
    severities = [f.severity for f in found]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    assert {f.id for f in found} == {
        "driver-too-old-for-cuda-build",
        "driver-too-old-for-cuda-toolkit",  # 510.47.03 can't run what nvcc 13.0 builds
        "arch-not-in-build",
        "nvcc-torch-cuda-mismatch",
        "cuda-visible-devices-hides-gpus",
    }
    assert all(f.id in rules.RULE_IDS for f in found)
    assert all(f.source and f.source.startswith("https://") for f in found)
    assert all(f.fix and f.title and "\n" not in f.title for f in found)


def test_a_crashing_rule_becomes_one_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(snapshot: Snapshot) -> Iterator[Finding]:
        raise KeyError("odd value")

    monkeypatch.setattr(rules, "REGISTRY", [*REGISTRY, Rule(ids=("x-test",), func=broken)])
    snap = snapshot(accelerators=accelerators(nvidia=nvidia("h100")), frameworks=torch("2.13.0+cpu"))
    found = rules.evaluate(snap)
    assert [f.id for f in found] == ["cpu-only-build-on-gpu-host", "rule-crashed"]
    assert "test_engine.broken (x-test) could not run: KeyError" in found[1].title


def test_worst_severity() -> None:
    assert worst(["info", "error", "warning"]) == "error"
    assert worst([]) == "info"


def test_the_checks_page_documents_every_rule() -> None:
    import re

    from tests.conftest import REPO_ROOT

    page = REPO_ROOT / "docs" / "usage" / "checks.md"
    after = page.read_text(encoding="utf-8").split("\n## The rules\n", 1)[1]
    checks = after.split("\n## ", 1)[0]  # the section only, up to the next heading
    documented = set(re.findall(r"^\| `([a-z0-9-]+)` \|", checks, re.MULTILINE))
    assert documented == set(rules.RULE_IDS)
