"""The checks judge pasted collect_env reports: each report shows the mismatch it was written for."""

from __future__ import annotations

import pytest

from envsnap.importers import parse_report
from envsnap.rules import evaluate
from envsnap.snapshot.finalize import finalize
from tests.conftest import DATA

EXPECTED: dict[str, set[tuple[str, str]]] = {
    # torch 1.2 / CUDA 10.0 on driver 418.87: a consistent 2019 stack, nothing to say.
    "gen2019_torch1.2_cuda10.txt": set(),
    "gen2021_torch1.10_nvcc_minor_mismatch.txt": {("nvcc-torch-cuda-mismatch", "info")},
    "gen2024_torch2.2_cpu_build_on_h100.txt": {("cpu-only-build-on-gpu-host", "error")},
    # cu124 has sm_90 SASS and compute_90 PTX: the 5090 (sm_120) is reached only through JIT.
    "gen2024_windows_markdown_rtx5090_cu124.txt": {("arch-not-in-build", "warning")},
    "gen2024_torch2.4_cu118_mixed_wheels.txt": {
        ("companion-version-mismatch", "error"),
        ("nvcc-torch-cuda-mismatch", "error"),
        ("duplicate-distributions", "warning"),
    },
    "gen2025_torch2.5_cu121_on_mi300x.txt": {
        ("build-vendor-mismatch", "error"),
        ("build-vendor-mismatch", "warning"),
    },
    "gen2025_torch2.6_rocm_mi250.txt": set(),  # gfx90a in a ROCm 6.2 build: supported
    "gen2026_torch2.14_cu130_old_driver.txt": {("driver-too-old-for-cuda-build", "error")},
}


def test_every_report_has_an_expectation() -> None:
    assert set(EXPECTED) == {p.name for p in (DATA / "collect_env").glob("*.txt")}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_findings_of_each_report(name: str) -> None:
    text = (DATA / "collect_env" / name).read_text(encoding="utf-8")
    snapshot = finalize(parse_report("collect-env", text, name, captured_at="2026-11-29T12:00:00Z"))
    assert {(f.id, f.severity) for f in evaluate(snapshot)} == EXPECTED[name]
