"""Which instruction set an inline ``asm(...)`` block is written in.

Only PTX is NVIDIA's: x86 (``cpuid``, ``rdtsc``), ARM (``dmb``, ``mrs``) and AMD GCN/RDNA
(``s_waitcnt``, ``v_mov_b32``) assembly is not a CUDA blocker, and AMD assembly is evidence of a
ROCm path. The classification reads the instruction mnemonics in the string literals of the block.
"""

from __future__ import annotations

import re
from typing import Literal

Dialect = Literal["ptx", "x86", "arm", "amdgcn", "barrier", "unknown"]

_STRINGS = re.compile(r'"((?:\\.|[^"\\\n])*)"')
_AMDGCN = re.compile(
    r"\b(?:s_waitcnt|s_nop|s_barrier|s_sleep|s_setprio|s_getreg\w*|s_memtime|s_dcache\w*|v_\w+_(?:[bfiu]\d+)|"
    r"ds_(?:read|write|swizzle|bpermute|permute)\w*|global_(?:load|store|atomic)\w*|buffer_(?:load|store)\w*|"
    r"flat_(?:load|store)\w*|v_mfma\w*|v_dot\w*|s_mov_b\d+)\b"
)
_PTX = re.compile(
    r"%%(?:laneid|warpid|smid|clock|globaltimer|tid|ntid|ctaid|nctaid|dynamic_smem_size|lanemask\w*)|"
    r"\b(?:mov|ld|st|cvt|mma|wgmma|ldmatrix|stmatrix|cp|bar|barrier|red|atom|shfl|vote|prmt|lop3|fma|add|mul|"
    r"sub|max|min|setp|selp|bfe|bfi|popc|brev|fence|mbarrier|tcgen05|elect|griddepcontrol|setmaxnreg|"
    r"tanh|ex2|rcp|sqrt|createpolicy|prefetch|discard|membar|activemask|match|redux|cvta|isspacep|"
    r"multimem|tensormap|applypriority)\.[a-z0-9_:]+"
)
_X86 = re.compile(
    r"\b(?:cpuid|rdtscp?|xgetbv|pause|mfence|lfence|sfence|lock|cmpxchg\w*|xchg\w?|bswap\w?|"
    r"vzeroupper|prefetcht\d|clflush\w*|movl|movq|addl|pushq?|popq?)\b|%%[er]?[abcd]x\b|%%[re](?:si|di|sp|bp)\b"
)
_ARM = re.compile(r"\b(?:dmb|dsb|isb|yield|wfe|wfi|sev|mrs|msr|ldxr|stxr|ldaxr|stlxr|ldar|stlr|svc|hint)\b")


def dialect(block: str) -> Dialect:
    """The dialect of the asm block starting at ``asm(`` (its text up to the closing ``;``)."""
    text = " ".join(_STRINGS.findall(_template(block)))
    if not text.strip():
        return "barrier"  # asm volatile("" ::: "memory"): a compiler barrier, no instruction
    if _AMDGCN.search(text):
        return "amdgcn"
    if _PTX.search(text):
        return "ptx"
    if _X86.search(text):
        return "x86"
    if _ARM.search(text):
        return "arm"
    return "unknown"


def _template(block: str) -> str:
    """The instruction template: the string literals before the first ``:`` outside a string."""
    in_string = False
    escaped = False
    for index, char in enumerate(block):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in ":;":
            return block[:index]
    return block
