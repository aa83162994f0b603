"""Whether a C/C++ file is worth the native scanner: any CUDA/HIP/SYCL token, at near-grep speed.

A vendored CUTLASS or a framework's include tree is thousands of headers, most without a token: one
Aho-Corasick pass finds the anchors (literals every token contains) and only the lines holding one
are tried against the word-bounded tokens (the alternation alone ran at 20 MB/s over such headers).
"""

from __future__ import annotations

import re
import string

import ahocorasick_rs

TRIGGER = re.compile(
    rb"cuda|CUDA|\bcu[A-Z]|\b(?:asm|__asm__|__asm)\b|__global__|_sync\b|cublas|cudnn|cutlass|cute/|nccl|thrust|"
    rb"NvInfer|WARP_?SIZE|[kK]?_?[Ww]arp_?[Ss]ize|FULL_MASK|__ld[cl]|__st[cw]|nvtx|cuFile|cufile|CUBLASLT|"
    rb"\bhip|HIP_|_HIP\b|__HIPCC__|ROCM|rocm|sycl|SYCL|\bmma\.h|Metal"
)
"""Tokens a C/C++ signal needs: CUDA/HIP/SYCL identifiers, asm, warp-size constants, CUDA library headers."""

_WARP_SIZES = [f"{w}arp{sep}{s}ize" for w in "Ww" for sep in ("", "_") for s in "Ss"]
ANCHORS = [
    "cuda",
    "CUDA",
    "asm",
    "__global__",
    "_sync",
    "cublas",
    "cudnn",
    "cutlass",
    "cute/",
    "nccl",
    "thrust",
    "NvInfer",
    "WARPSIZE",
    "WARP_SIZE",
    "FULL_MASK",
    "__ldc",
    "__ldl",
    "__stc",
    "__stw",
    "nvtx",
    "cufile",
    "CUBLASLT",
    "hip",
    "HIP_",
    "_HIP",
    "ROCM",
    "rocm",
    "sycl",
    "SYCL",
    "mma.h",
    "Metal",
    *(f"cu{letter}" for letter in string.ascii_uppercase),
    *_WARP_SIZES,
]
"""A literal of every alternative of ``TRIGGER`` (case as written: C identifiers are case-sensitive)."""
_ANCHOR_SEARCH = ahocorasick_rs.BytesAhoCorasick([anchor.encode() for anchor in ANCHORS])


def native_triggered(data: bytes) -> bool:
    """Whether any line of a C/C++/CUDA file holds a trigger token."""
    line_end = -1
    for _, start, _ in _ANCHOR_SEARCH.find_matches_as_indexes(data):
        if start < line_end:
            continue  # this line is already judged
        begin = data.rfind(b"\n", 0, start) + 1
        line_end = data.find(b"\n", start)
        if line_end == -1:
            line_end = len(data)
        if TRIGGER.search(data, begin, line_end) is not None:
            return True
    return False
