"""Fixes after measurement rounds 208-211 and on (#22, stop 24), each with the real excerpt and a twin.

- fvdb-core 0.6.0 (round 210): one ``#if defined(USE_ROCM)`` branch in a header copied from ATen, in a
  tree whose only build is ``project(fvdb LANGUAGES CXX CUDA)``, read as a ROCm port (two levels off).
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.conftest import audit_files, raised

# fvdb-core 0.6.0: src/CMakeLists.txt:1-6.
FVDB_CMAKE = (
    "# Copyright Contributors to the OpenVDB Project\n"
    "# SPDX-License-Identifier: Apache-2.0\n"
    "\n"
    "cmake_minimum_required(VERSION 3.25 FATAL_ERROR)\n"
    "\n"
    "project(fvdb LANGUAGES CXX CUDA)\n"
)
# src/fvdb/detail/utils/cuda/Atomics.cuh:171-181, the half atomicAdd fallback copied from ATen.
FVDB_ATOMICS = (
    "#include <c10/cuda/CUDAException.h>\n"
    "#if defined(USE_ROCM) || (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 700 || CUDA_VERSION < 10000))\n"
    "static inline __device__ void\n"
    "atomAdd(at::Half *address, at::Half val) {\n"
    "    AtomicAddDecimalImpl<at::Half, sizeof(at::Half)>()(address, val);\n"
    "}\n"
    "#else\n"
    "static inline __device__ void\n"
    "atomAdd(at::Half *address, at::Half val) {\n"
    "    atomicAdd(reinterpret_cast<__half *>(address), val);\n"
    "}\n"
    "#endif\n"
)
# src/fvdb/detail/ops/IjkToIndex.cu: a kernel source of the same build.
FVDB_KERNEL = (
    "#include <fvdb/detail/utils/cuda/Atomics.cuh>\n"
    "#include <c10/cuda/CUDAException.h>\n"
    "__global__ void ijkToIndex(const int *ijk, long *out, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = ijk[i];\n"
    "}\n"
)
FVDB = {
    "src/CMakeLists.txt": FVDB_CMAKE,
    "src/fvdb/detail/utils/cuda/Atomics.cuh": FVDB_ATOMICS,
    "src/fvdb/detail/ops/IjkToIndex.cu": FVDB_KERNEL,
}


def test_a_rocm_branch_that_no_build_compiles_for_amd_is_no_port(tmp_path: Path) -> None:
    report = audit_files(tmp_path, FVDB, "rocm:gfx942")
    # A plain kernel is hipify's work (moderate); fVDB's CUTLASS/CuTe sources make it higher.
    assert report.verdict.risk == "moderate"
    assert not report.verdict.supported
    assert "cuda-source" in raised(report)


def test_the_same_branch_counts_where_the_build_knows_hip(tmp_path: Path) -> None:
    # The twin: a CMake project that also enables HIP builds the branch for AMD GPUs.
    hip = {**FVDB, "src/CMakeLists.txt": FVDB_CMAKE + "if(USE_ROCM)\n  enable_language(HIP)\nendif()\n"}
    assert audit_files(tmp_path / "hip", hip, "rocm:gfx942").verdict.risk == "lower"
    # So does a torch CUDAExtension in setup.py, which hipifies its sources under ROCm PyTorch.
    setup = (
        "from setuptools import setup\n"
        "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\n"
        "setup(name='fvdb', ext_modules=[CUDAExtension('fvdb._C', ['src/fvdb/detail/ops/IjkToIndex.cu'])],\n"
        "      cmdclass={'build_ext': BuildExtension})\n"
    )
    extension = {**FVDB, "setup.py": setup}
    assert audit_files(tmp_path / "extension", extension, "rocm:gfx942").verdict.risk == "lower"
