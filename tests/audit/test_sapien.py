"""SAPIEN's GPU simulation is CUDA-only (#22 blind round 55, ManiSkill 3.0.1: two levels off on all three).

ManiSkill's parallel environments run SAPIEN's PhysX GPU solver (``physx_cuda``) and render with
``sapien_cuda``; its macOS docs: "GPU simulation is currently not yet supported". envsnap had no row for
SAPIEN and read only ``nvidia-ml-py`` and guarded ``torch.cuda`` calls: lower everywhere, truth higher.
Twins: on the CPU target SAPIEN's CPU simulation runs; a package whose name only starts like it is not it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.conftest import audit_files

# mani-skill 3.0.1 METADATA (Requires-Dist lines) and envs/utils/system/backend.py (trimmed).
METADATA = """\
Metadata-Version: 2.1
Name: mani_skill
Version: 3.0.1
Requires-Dist: sapien>=3.0.0; platform_system == "Linux"
Requires-Dist: sapien>=3.0.2; platform_system == "Darwin"
Requires-Dist: torch
"""
BACKEND = """\
import platform
import sapien
import torch


def parse_sim_and_render_backend(sim_backend: str, render_backend: str):
    if sim_backend == "auto":
        sim_backend = "physx_cuda" if torch.cuda.is_available() else "physx_cpu"
    if sim_backend == "physx_cuda":
        device = sapien.Device("cuda")
    else:
        device = sapien.Device("cpu")
    return device
"""


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_sapien_gpu_simulation_has_no_port_off_nvidia(tmp_path: Path, target: str) -> None:
    files = {"METADATA": METADATA, "mani_skill/envs/utils/system/backend.py": BACKEND}
    report = audit_files(tmp_path, files, target)
    assert report.verdict.risk == "higher"
    sapien = [f for f in report.findings if "SAPIEN" in f.meaning]
    assert {f.rule for f in sapien} >= {"cuda-only-import", "cuda-only-requirement"}


def test_twin_the_cpu_runs_sapien_cpu_simulation(tmp_path: Path) -> None:
    files = {"METADATA": METADATA, "mani_skill/envs/utils/system/backend.py": BACKEND}
    assert audit_files(tmp_path, files, "cpu").verdict.risk == "lower"


def test_twin_a_package_named_like_it_is_not_sapien(tmp_path: Path) -> None:
    files = {"app.py": "import sapien_utils\n\nprint(sapien_utils.__name__)\n"}
    assert audit_files(tmp_path, files, "xpu").verdict.risk == "lower"
