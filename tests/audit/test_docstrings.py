"""A docstring (any string standing as a statement) is prose: it never runs, so it is never a signal.

The module docstring of scanners/python.py promised it; a docstring quoting a CUDA kernel
(``__global__ void k(...)``) or nvcc flags still gave ``cuda-kernel-string``/``gencode`` (review of
the round 9–11 change). A string the code uses (assigned, passed) still counts.
"""

from __future__ import annotations

from envsnap.audit.scanners.python import scan_python

PROSE = '''"""Kernels.

The CUDA source looks like ``__global__ void add(float* x) { }``, built with
``-gencode arch=compute_80,code=sm_80``.
"""


def f():
    """Compiles ``__global__ void scale(float* x)`` with -gencode arch=compute_90,code=sm_90."""
    return 1
'''

USED = '''KERNEL = """
extern "C" __global__ void add(float* x) { x[0] += 1; }
"""
FLAGS = ["-gencode", "arch=compute_80,code=sm_80"]
'''


def _kinds(text: str) -> set[str]:
    return {s.kind for s in scan_python("k.py", text)}


def test_a_docstring_quoting_a_kernel_or_nvcc_flags_is_no_signal() -> None:
    assert _kinds(PROSE) == set()


def test_a_kernel_string_the_code_keeps_is_still_one() -> None:
    assert {"cuda-kernel-string", "gencode"} <= _kinds(USED)
