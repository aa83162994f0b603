"""Fixes from blind round 21 (#22), each on an excerpt of the real project that showed it:

- cuCIM 26.10 builds no extension: its PBA distance-transform kernels live in ``morphology/cuda/*.h`` files
  that the Python side reads and hands to CuPy (``cupy.RawModule``), compiled at run time by NVRTC. On ROCm
  the same source goes through hiprtc (CuPy's ROCm build), not through torch.utils.cpp_extension's hipify at
  build, which the finding used to name. Verdict and risk are unchanged: only what the finding says.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

from envsnap.audit import audit, parse_target, scan_tree
from tests.audit.conftest import audit_files, project

# cucim 26.10.0 cucim/core/operations/morphology/_pba_2d.py (trimmed): the kernels are read from a .h file.
PBA_2D = """\
import os

import cupy


def get_pba2d_src():
    kernel_directory = os.path.join(os.path.dirname(__file__), "cuda")
    with open(os.path.join(kernel_directory, "pba_kernels_2d.h")) as f:
        return "\\n".join(f.readlines())


def _pba_2d(arr):
    pba2d = cupy.RawModule(code=get_pba2d_src(), options=("-std=c++11",))
    kernelFloodDown = pba2d.get_function("kernelFloodDown")
    return kernelFloodDown
"""
# cucim 26.10.0 cucim/core/operations/morphology/cuda/pba_kernels_2d.h (one kernel of twelve).
PBA_KERNELS = """\
extern "C"{

__global__ void kernelFloodDown(pixel_int2_t *input, pixel_int2_t *output, int size, int bandSize)
{
    int tx = blockIdx.x * blockDim.x + threadIdx.x;
    int ty = blockIdx.y * bandSize;
    int id = TOID(tx, ty, size);
    pixel_int2_t pixel1, pixel2;
    pixel1 = make_pixel(MARKER, MARKER);
    for (int i = 0; i < bandSize; i++, id += size) {
        pixel2 = input[id];
        if (pixel2.x != MARKER)
            pixel1 = pixel2;
        output[id] = pixel1;
    }
}

}
"""
# Twin: the same kernel file built as a torch CUDA extension (setup.py CUDAExtension).
SETUP = """\
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="pba",
    ext_modules=[CUDAExtension("pba._C", ["pba/cuda/pba_kernels_2d.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
"""

CUCIM = {"cucim/morphology/_pba_2d.py": PBA_2D, "cucim/morphology/cuda/pba_kernels_2d.h": PBA_KERNELS}


def _source_meanings(files: dict[str, str], root: Path) -> tuple[str, list[str]]:
    result = audit_files(root, files, "rocm:gfx942")
    meanings = [f.meaning for f in result.findings if f.rule == "cuda-source"]
    assert meanings, "the CUDA source was not found"
    return result.verdict.risk, meanings


def test_kernels_compiled_at_run_time_are_not_called_a_torch_build(tmp_path: Path) -> None:
    risk, meanings = _source_meanings(CUCIM, tmp_path)
    assert risk == "moderate"
    assert all("hiprtc" in m and "cpp_extension" not in m for m in meanings)


def test_the_same_kernels_in_a_torch_extension_keep_the_hipify_wording(tmp_path: Path) -> None:
    # Twin: a build compiles them, so cpp_extension's hipify is the path.
    files = {"setup.py": SETUP, "pba/cuda/pba_kernels_2d.cu": PBA_KERNELS, "pba/run.py": PBA_2D}
    risk, meanings = _source_meanings(files, tmp_path)
    assert risk == "moderate"
    assert all("cpp_extension hipifies" in m for m in meanings)


def test_host_binders_of_a_run_time_compiler_keep_the_hipify_wording() -> None:
    # Twin: KeOps compiles its NVRTC binders (host code, CUDA driver/NVRTC calls) with the host compiler;
    # they need hipify, not hiprtc, and stay lower.
    result = audit(scan_tree(project("real-keops")), None, parse_target("rocm:gfx942"))
    binders = [f for f in result.findings if f.rule == "cuda-source" and "binders/nvrtc" in f.location]
    assert binders
    assert all(f.risk == "lower" and "cpp_extension hipifies" in f.meaning for f in binders)
