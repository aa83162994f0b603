"""Which preprocessor branches a ROCm build compiles, per line of a C/C++/CUDA file.

A port keeps both paths in one file: ``#ifdef USE_ROCM`` ... ``#else`` ... ``#endif``. Read as text,
the CUDA branch looks like CUDA-only code; read with the branches, it is the half a ROCm build never
compiles. This tracker follows ``#if/#ifdef/#ifndef/#elif/#else/#endif`` and says, for any line,
whether it sits in a ROCm-only branch, in a branch a ROCm build excludes, or in shared code.
It does not evaluate expressions: a condition counts as a ROCm switch when it names a known HIP
macro (``__HIP_PLATFORM_AMD__``, ``__HIPCC__``, ``USE_ROCM``, ``*_HIP``, ``BUILD_AMD``, ``USE_AMD_ROCM``
...), and its polarity comes from ``#ifndef`` or a ``!`` before the name.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

Branch = Literal["shared", "rocm-only", "not-rocm"]

ROCM_MACRO = re.compile(
    r"\b(?:USE_ROCM|USE_HIP|__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIPCC__|__HIP__|"
    r"__HIP_DEVICE_COMPILE__|HIP_VERSION(?:_MAJOR|_MINOR)?|TORCH_HIP_VERSION|ROCM_VERSION|BUILD_AMD|"
    r"__gfx\w+__|\w+_USE_HIP|\w+_HIP|IS_ROCM|WITH_ROCM|__AMDGCN__|__AMDGCN_WAVEFRONT_SIZE|"
    # A project's own ROCm switch: faiss defines USE_AMD_ROCM (CMake FAISS_ENABLE_ROCM) (#22 blind round 6).
    r"\w*(?:USE|WITH|ENABLE|BUILD|HAVE|HAS)_(?:\w+_)?ROCM)\b"
)
"""Macros that a HIP/ROCm build defines (compiler, PyTorch's hipify, or the project's ROCm switch)."""
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b([^\n]*)", re.MULTILINE)


def _polarity(keyword: str, condition: str) -> int:
    """+1: true on ROCm; -1: false on ROCm; 0: not about ROCm."""
    match = ROCM_MACRO.search(condition)
    if match is None:
        return 0
    if keyword == "ifndef":
        return -1
    before = condition[: match.start()].rstrip()
    if before.endswith("defined("):
        before = before[: -len("defined(")].rstrip()
    elif before.endswith("defined"):
        before = before[: -len("defined")].rstrip()
    return -1 if before.endswith("!") else 1


@dataclass(frozen=True)
class Branches:
    """The ROCm branch state of a file from each line on (a step function over line numbers)."""

    starts: tuple[int, ...]
    states: tuple[Branch, ...]
    rocm_switches: int
    """How many conditions in the file name a ROCm macro (0: the file has no HIP path)."""

    def at(self, line: int) -> Branch:
        index = bisect.bisect_right(self.starts, line) - 1
        return self.states[index] if index >= 0 else "shared"


def branches(code: str) -> Branches:
    """The branch map of ``code`` (comments already blanked, so a commented ``#if`` is not one)."""
    frames: list[list[int]] = []  # per open #if: polarity of each branch so far, the current last
    starts: list[int] = [1]
    states: list[Branch] = ["shared"]
    switches = 0
    line = 1
    offset = 0
    for match in _DIRECTIVE.finditer(code):
        line += code.count("\n", offset, match.start())
        offset = match.start()
        keyword, condition = match.group(1), match.group(2)
        if keyword in ("if", "ifdef", "ifndef"):
            polarity = _polarity(keyword, condition)
            switches += polarity != 0
            frames.append([polarity])
        elif keyword == "elif" and frames:
            polarity = _polarity("if", condition)
            switches += polarity != 0
            if polarity == 0 and 1 in frames[-1]:
                polarity = -1  # an earlier branch took the ROCm build
            frames[-1].append(polarity)
        elif keyword == "else" and frames:
            previous = frames[-1]
            if 1 in previous:
                polarity = -1
            elif previous == [-1]:
                polarity = 1
            else:
                polarity = 0
            frames[-1].append(polarity)
        elif keyword == "endif" and frames:
            frames.pop()
        else:
            continue
        current = [frame[-1] for frame in frames]
        state: Branch = "not-rocm" if -1 in current else "rocm-only" if 1 in current else "shared"
        # The directive line itself belongs to the branch it opens: a finding on the next line
        # is what matters.
        if state != states[-1]:
            starts.append(line + 1)
            states.append(state)
    return Branches(tuple(starts), tuple(states), switches)
