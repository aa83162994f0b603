"""A project with a path for the target: its findings are named to check, the verdict is lower.

Measured on the blind rounds 3-32, each scored at the commit before its fixes (#22): where envsnap found the
project's own path for the target and its findings read moderate, the documented verdict was lower in 44 of
49 cells, and of all 91 cells with such a path 81 were lower, kernels among the findings or not. The places
stay in the report, named first; only the verdict moves. Twins: no path (as before), and a path that cannot
work (another vendor's runtime imported unguarded: as before).
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.conftest import audit_files, raised
from tests.audit.test_blind6_fixes import RETURNS_DEVICE

# A device picked with MPS in the list (blind round 6's early-return helper), and one helper that still calls
# the CUDA memory API and moves a buffer to "cuda" (the shape of torchtune's training/memory.py).
DEVICE_AWARE = RETURNS_DEVICE
CUDA_HELPER = """import torch


def peak_memory(model):
    stats = torch.cuda.reset_peak_memory_stats()
    buffer = torch.zeros(4).to("cuda")
    return stats, buffer.sum()
"""
KERNEL = """__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"""
SETUP_EXTENSION = """from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="pkg",
    ext_modules=[CUDAExtension("pkg._C", ["csrc/scale.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
"""


def test_a_project_that_runs_on_mps_is_lower_with_its_cuda_places_named(tmp_path: Path) -> None:
    files = {"pkg/device.py": DEVICE_AWARE, "pkg/memory.py": CUDA_HELPER}
    report = audit_files(tmp_path, files, "mps")
    assert report.verdict.supported
    assert raised(report) >= {"torch-cuda-api"}
    assert report.verdict.risk == "lower"
    assert report.verdict.reasons[0].startswith("has a code path on Apple MPS")
    named = [line for line in report.verdict.reasons if line.startswith("to check on Apple MPS")]
    assert named
    assert any("pkg/memory.py" in line for line in named)
    # Twin: the same helper in a project with no MPS path is the edit it was.
    alone = audit_files(tmp_path / "alone", {"pkg/memory.py": CUDA_HELPER}, "mps")
    assert not alone.verdict.supported
    assert alone.verdict.risk == "moderate"
    assert not any(line.startswith("to check") for line in alone.verdict.reasons)


def test_cuda_kernels_beside_a_device_path_are_named_not_ported(tmp_path: Path) -> None:
    files = {
        "pkg/device.py": DEVICE_AWARE.replace('"mps"', '"xpu"').replace("backends.mps", "xpu"),
        "setup.py": SETUP_EXTENSION,
        "csrc/scale.cu": KERNEL,
    }
    report = audit_files(tmp_path, files, "xpu")
    assert report.verdict.supported
    # On XPU the kernels have no compiler (higher findings, not claimed as built); the project's XPU path
    # sets the verdict, and they are the first places to check.
    assert report.verdict.risk == "lower"
    assert {f.risk for f in report.findings if f.rule in ("cuda-source", "cuda-extension")} == {"higher"}
    assert report.verdict.reasons[1].startswith("to check on Intel XPU: cuda-source: csrc/scale.cu")
    # Twin: the same kernels in a project with no XPU path are the port they were.
    bare = {name: text for name, text in files.items() if name != "pkg/device.py"}
    alone = audit_files(tmp_path / "alone", bare, "xpu")
    assert not alone.verdict.supported
    assert alone.verdict.risk == "higher"


def test_a_finding_the_projects_path_cannot_cover_still_sets_the_verdict(tmp_path: Path) -> None:
    # A module that imports another vendor's runtime unguarded does not import on the target at all
    # (optimum-habana's habana_frameworks): a ROCm branch elsewhere is no path.
    files = {
        "pkg/device.py": "import torch\n\nIS_ROCM = torch.version.hip is not None\n",
        "pkg/run.py": (
            "import habana_frameworks.torch.core as htcore\n\n\ndef step():\n    htcore.mark_step()\n"
        ),
    }
    report = audit_files(tmp_path, files, "rocm:gfx942")
    assert report.verdict.supported
    assert report.verdict.risk == "higher"
    assert report.verdict.reasons[0].startswith("a code path, but an import it needs has no build there")
    assert not any(line.startswith("to check") for line in report.verdict.reasons)
    # Twin: the same import behind a guard is that device's own path, and the ROCm path sets the verdict.
    guarded = files["pkg/run.py"].replace(
        "import habana_frameworks.torch.core as htcore\n",
        "try:\n    import habana_frameworks.torch.core as htcore\nexcept ImportError:\n    htcore = None\n",
    )
    twin = audit_files(tmp_path / "guarded", {**files, "pkg/run.py": guarded}, "rocm:gfx942")
    assert twin.verdict.risk == "lower"
