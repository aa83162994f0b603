"""25.3. Audit's build-file scans are linear, up to the 2 MB a source file may have.

The issue measured a 76 KB Dockerfile (``pip install`` repeated), a 64 KB CMakeLists
(``LANGUAGES``), a 16 KB ``TORCH_CUDA_ARCH_LIST`` in setup.py and a 94 KB pyproject at 4-17 s
each, about 4x per doubling: patterns that restart a long scan at every occurrence. Here each
shape is scanned at the full size audit accepts (``MAX_TEXT_BYTES``): a quadratic scanner takes
hours on these and runs into the test's timeout (a limit, not a measurement: the fixed scanner
needs well under a second). The real signals around them are still found.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envsnap.audit.file_read import MAX_TEXT_BYTES
from envsnap.audit.file_scan import scan_file
from envsnap.audit.scanners import build
from envsnap.audit.scanners import python_shapes as python_scan
from envsnap.audit.walk import Entry


def _fill(head: str, unit: str, tail: str) -> str:
    room = MAX_TEXT_BYTES - len(head) - len(tail) - 16
    return head + unit * (room // len(unit)) + tail


CASES = {
    "Dockerfile": (
        "docker",
        _fill("FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nRUN ", "pip install ", "\n"),
    ),
    "CMakeLists.txt": ("build", _fill("enable_language(CUDA)\nproject(x ", "LANGUAGES ", "\n")),
    "pyproject.toml": ("build", _fill('[project]\ndependencies = ["flash-attn==2.5.0", ', '"a[', '"]\n')),
    "setup.py": (
        "python",
        _fill('import os\nos.environ["TORCH_CUDA_ARCH_LIST"] = "8.0', " ", 'x"\nx.cuda()\n'),
    ),
    "metal.cmake": ("build", _fill("enable_language(CUDA)\n", "find_library( ", "\n")),
    "kernel.cu": ("native", _fill("#include <cuda_runtime.h>\n__global__ void k() {}\n", "#include <", "\n")),
    "requirements.txt": ("requirements", _fill("flash-attn==2.5.0\n", "x" * 60 + " ", "\n")),
    "run.sh": ("shell", _fill("pip install bitsandbytes\n", "pip install ", "\n")),
}


@pytest.mark.timeout(90)
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_file_at_the_size_cap_is_scanned_in_linear_time(name: str, tmp_path: Path) -> None:
    kind, text = CASES[name]
    assert len(text) <= MAX_TEXT_BYTES
    path = tmp_path / name
    path.write_text(text)
    signals, skipped, parsed = scan_file(Entry(str(path), name, kind))  # type: ignore[arg-type]
    assert skipped == []
    assert parsed
    assert signals, name  # the real signal next to the hostile line is still found


# The patterns as they were: the rewrite must find exactly what they found, on any short line.
OLD_PIP_APEX = re.compile(r"\bpip3?\s+install\b[^\n#]*?\s(apex)(?:[\s=<>;]|$)")
OLD_CMAKE_CUDA = re.compile(
    r"enable_language\s*\(\s*CUDA|LANGUAGES[^)]*\bCUDA\b|find_package\s*\(\s*(?:CUDA|CUDAToolkit)\b|cuda_add_(?:library|executable)",
    re.IGNORECASE,
)
OLD_PORT_ROCM = re.compile(
    r"enable_language\s*\(\s*HIP|LANGUAGES[^)]*\bHIP\b|find_package\s*\(\s*(?:hip|HIP|rocblas|hipblas|rocm)\b|"
    r"\b(?:GGML_HIP|USE_ROCM|BUILD_AMD|COMPUTE_BACKEND\W+hip|BUILD_TARGET\W+rocm|IS_ROCM\w*|WITH_ROCM|"
    r"ENABLE_HIP|USE_HIP)\b|\bhipcc\b|--offload-arch=gfx|\bPYTORCH_ROCM_ARCH\b|\bAMDGPU_TARGETS\b"
)
OLD_PORT_MPS = re.compile(
    r"-framework\s+Metal\b|find_library\s*\([^)]*Metal|\b(?:GGML_METAL|USE_MPS|COMPUTE_BACKEND\W+mps)\b"
)
OLD_ARCH_LIST = re.compile(r"^\s*\d+\.\d+(\+PTX)?(\s*[; ]\s*\d+\.\d+(\+PTX)?)*\s*$")
WORDS = st.sampled_from(
    ["pip", "pip3", "install", "apex", "apex==0.1", "#", " ", "  ", "\t", "=", ";", "LANGUAGES", "languages",
     "CUDA", "cuda", "CXX", ")", "(", "project", "enable_language", "8.0", "9.0+PTX", "x", "-", "HIP", "hip",
     "find_library", "Metal", "LANGUAGES HIP"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(WORDS, max_size=12).map("".join))
def test_the_rewritten_checks_find_what_the_old_patterns_found(line: str) -> None:
    assert build._pip_installs_apex(line) == bool(OLD_PIP_APEX.search(line))
    assert build._cmake_cuda(line) == bool(OLD_CMAKE_CUDA.search(line))
    assert python_scan.is_arch_list(line) == bool(OLD_ARCH_LIST.match(line))
    if not line.strip() or line.strip().startswith("#"):
        return  # a comment line is not scanned at all
    ports = {s.subject for s in build.scan_build("CMakeLists.txt", line, "build") if s.kind == "port"}
    assert ("rocm" in ports) == bool(OLD_PORT_ROCM.search(line.strip()))
    assert ("mps" in ports) == bool(OLD_PORT_MPS.search(line.strip()))
