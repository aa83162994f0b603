"""21. Every paste reader costs work linear in the paste, whatever the paste holds.

A hostile-input run found super-linear parsers: an ``nvidia-smi -q`` paste with one 3,000-space
indented line (cubic), 20,000 blank lines (line-start patterns whose ``\\s*`` ran over every
following newline), a 100 KB nvidia-smi table row / collect_env GPU or OS line / conda header,
``<?xml`` repeated to 500 KB, a 4 MB collect_env with 250k package lines (wrapped values glued back
by string concatenation). No timing here (shared machines flake): hypothesis builds 1 MB pastes of
those shapes and the test counts Python calls per byte (``sys.setprofile``, as test_13_scale.py
does) and checks that doubling the paste at most doubles the calls. Regular-expression work does
not show up as Python calls, so the patterns are also bounded by construction: each paste line is
clipped (evidence.MAX_LINE) and line-start patterns use ``[ \\t]*``, never ``\\s*``.
benchmarks/bench_pasted_report.py times the same shapes against a plain ``str.splitlines``.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envsnap.errors import BadInput
from envsnap.importers.auto import parse_auto

SIZE = 1024 * 1024
CALLS_PER_BYTE = 4.0
"""About 1-3 Python calls per byte for short lines (each line is a few calls); a quadratic step costs
thousands per byte on a megabyte."""


def _calls(action: Callable[[], object]) -> int:
    calls = 0

    def profiler(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(profiler)
    try:
        action()
    finally:
        sys.setprofile(None)
    return calls


def _parse(text: str) -> None:
    with contextlib.suppress(BadInput):  # refusing is fine; hanging is not
        parse_auto(text, "paste.txt", captured_at="2026-01-01T00:00:00Z")


HEADS = (
    "==============NVSMI LOG==============\n\nDriver Version : 535.54.03\n",
    "PyTorch version: 2.1.0+cu121\nGPU models and configuration: GPU 0: ",
    "Collecting environment information...\nPyTorch version: 2.1.0\nOS: ",
    "+------+\n| NVIDIA-SMI 535.54.03    Driver Version: 535.54.03    CUDA Version: 12.2 |\n|   0  NVIDIA ",
    "# packages in environment at ",
    "  Name:                    gfx942\n  Marketing Name:          ",
    "  Device Type:             GPU\n  Marketing Name:          ",
    "host:1:1 [0] NCCL INFO cudaDriverVersion 12000\nhost:1:1 [0] NCCL INFO ",
    "PyTorch version: 2.0.1a0+cxx11.abi\nGPU models and configuration: \n[0] _DeviceProperties(name='",
    "GPU  Temp   AvgPwr  SCLK    MCLK    Fan     Perf  PwrCap  SCLK OD  MCLK OD  GPU%\n",
    '{\n    "Torch env info": {\n        "torch_version": "',
    "&nbsp; &nbsp; <driver_version&gt;",
    "WARNING [cuda.py:803] Detected different devices in the system: NVIDIA ",
    "HIP version  : 6.2.41133\nROCM_PATH    : /opt/rocm-",
    "|           | Device Name: Intel(R) ",
    "ggml_vulkan: 0 = Intel(R) ",
    "01:00.0 VGA compatible controller: NVIDIA Corporation ",
    "[opencl:gpu][opencl:1] Intel(R) OpenCL Graphics, ",
    '      "_name" : "',
    "      Chipset Model: ",
    "Linked TensorRT version: 8.4.3\nLoaded TensorRT version: ",
    'docker: Error response from daemon: could not select device driver "',
    "Device 0: Intel(R) Arc(TM) ",
    "| 0|[level_zero:gpu:0]| ",
    ">>> torch.backends.mps.is_available()\n",
    "",
)
"""What precedes the pathological part: the start of a format that sends it to one parser."""

UNITS = (
    " ",
    "\n",
    "<?xml ",
    "[rank0]: ",
    "2024-03-11T17:05:11.375Z ",
    "word ",
    "a:",
    "|",
    "=",
    "\t",
    "[pip3] torch==2.1.0\n",
    "continued text\n",
    "Oct 04 13:19:39 host unit[394]: ",
    "torch ",
)
"""Shapes that made a parser super-linear: runs of blanks or newlines, repeated prefixes, no colons."""


@st.composite
def pastes(draw: st.DrawFn) -> tuple[str, str]:
    head = draw(st.sampled_from(HEADS))
    unit = draw(st.sampled_from(UNITS))
    tail = draw(st.sampled_from(("x\n", "(x86_64)\n", ": value\n", "")))
    return head, unit, tail  # type: ignore[return-value]


def _paste(head: str, unit: str, tail: str, size: int) -> str:
    return head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pastes())
def test_a_pathological_megabyte_costs_linear_work(parts: tuple[str, str, str]) -> None:
    head, unit, tail = parts
    half = _calls(lambda: _parse(_paste(head, unit, tail, SIZE // 2)))
    full = _calls(lambda: _parse(_paste(head, unit, tail, SIZE)))
    assert full <= CALLS_PER_BYTE * SIZE, (repr(head[:20]), repr(unit), full)
    assert full <= 2.2 * half + 2_000, (repr(head[:20]), repr(unit), half, full)


@pytest.mark.parametrize(
    "text",
    [
        "==============NVSMI LOG==============\n\n" + " " * 3_000 + "x\n",
        "PyTorch version: 2.1.0\n" + "\n" * 20_000,
        "<?xml " * 80_000,
        "PyTorch version: 2.1.0\nOS: a" + " " * 100_000 + "(\n",
        "| NVIDIA-SMI 535.54.03    Driver Version: 535.54.03    CUDA Version: 12.2 |\n|   0  "
        + "A " * 50_000
        + "\n",
        "  Name:                    gfx942\n  Marketing Name:          AMD Instinct MI300X\n" * 50_000,
        "  Marketing Name:          AMD Instinct MI250X\n  Device Type:             GPU\n" * 50_000,
        "node:36748:36748 [0] NCCL INFO Using network IB\n" * 50_000,
        "PyTorch version: 2.0.1a0+cxx11.abi\nGPU models and configuration: \n"
        + "[0] _DeviceProperties(name='Intel(R) Arc(TM) A770 Graphics', platform_name='Intel(R) L0')\n"
        * 20_000,
        '        "nvidia_gpu_models": "AMD Radeon RX 6900 XT",\n' * 50_000,
        "&nbsp; &nbsp; <product_name&gt;NVIDIA GeForce RTX 4090</product_name&gt;\n" * 30_000,
        "Detected different devices in the system: " + "NVIDIA RTX A5000, " * 100_000 + ".\n",
        "an AMD APU (gfx1150, Radeon 890M) " * 30_000 + "\n",
        "using jax version 0.7.1 and " * 40_000 + "\n",
        "HIP version  : 3.10.20465\nROCM_PATH    : /opt/rocm-3.10.0\n" * 30_000,
        "|           | Device Name: Intel(R) Data Center GPU Flex 170   |\n" * 30_000,
        "ggml_vulkan: 0 = AMD Radeon Graphics (RADV GFX1151) (radv) | uma: 1 | fp16: 1\n" * 20_000,
        "ggml_vulkan: 0 = " + "Intel(R) (" * 100_000 + " | uma: 1\n",
        "NVIDIA Corporation " * 60_000 + "(rev ff)\n",
        "[opencl:gpu][opencl:1] Intel(R) OpenCL Graphics, Intel(R) Arc(TM) A770 Graphics OpenCL 3.0 [23.17]\n"
        * 20_000,
        "[cuda:gpu][cuda:0] NVIDIA CUDA BACKEND, " + "NVIDIA, " * 120_000 + "8.6 [CUDA 12.2]\n",
        '      "_name" : "Apple M3 Pro",\n      "spdisplays_mtlgpufamilysupport" : "spdisplays_metal3",\n'
        * 15_000,
        "Linked TRT ver: (8, 4, 3) " * 40_000 + "Loaded TRT ver: (8, 6, 1)\n",
        'could not select device driver "' + '"' * 500_000 + '" with capabilities: [[gpu]]\n',
        "  Device 0: Intel(R) Arc(TM) A770 Graphics,     compute capability 1.3,\n" * 15_000,
        "| 0|[level_zero:gpu:0]| " + "|" * 500_000 + "\n",
        ">>> torch.backends.mps.is_available()\nTrue\n" * 25_000,
    ],
    ids=[
        "smi-q-3000-spaces",
        "20000-blank-lines",
        "xml-500k",
        "os-line-100k",
        "smi-row-100k",
        "rocminfo-50000-agents",
        "rocminfo-50000-agents-without-name",
        "nccl-info-50000-lines",
        "ipex-20000-xpu-devices",
        "sysinfo-json-50000-members",
        "escaped-xml-30000-elements",
        "different-devices-100000-names",
        "amd-gfx-prose-one-megabyte-line",
        "package-version-sentence-one-megabyte-line",
        "hipconfig-30000-blocks",
        "xpu-smi-30000-rows",
        "vulkan-20000-devices",
        "vulkan-one-megabyte-parenthesised-name",
        "lspci-one-megabyte-nvidia-line",
        "sycl-ls-20000-devices",
        "sycl-ls-one-megabyte-device-name",
        "system-profiler-json-15000-gpus",
        "tensorrt-one-megabyte-linked-line",
        "docker-half-megabyte-of-quotes",
        "ggml-sycl-15000-devices",
        "ggml-sycl-row-half-megabyte-of-bars",
        "mps-answer-25000-times",
    ],
)
def test_the_shapes_the_hostile_run_found(text: str) -> None:
    calls = _calls(lambda: _parse(text))
    assert calls <= CALLS_PER_BYTE * len(text) + 5_000, calls


def test_a_collect_env_with_250k_package_lines_is_linear() -> None:
    head = "PyTorch version: 2.1.0+cu121\nOS: Ubuntu\nVersions of relevant libraries:\n"
    small = head + "".join(f"[pip3] pkg{i}==1.{i % 40}\n" for i in range(25_000))
    large = head + "".join(f"[pip3] pkg{i}==1.{i % 40}\n" for i in range(50_000))
    assert _calls(lambda: _parse(large)) <= 2.2 * _calls(lambda: _parse(small))


def _multiline_patterns() -> list[tuple[str, str]]:
    import importlib
    import pkgutil
    import re

    import envsnap.importers
    import envsnap.rules

    found = []
    for package in (envsnap.importers, envsnap.rules):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for name, value in vars(module).items():
                if (
                    isinstance(value, re.Pattern)
                    and value.flags & re.MULTILINE
                    and isinstance(value.pattern, str)
                ):
                    found.append((f"{module.__name__}.{name}", value.pattern))
    return found


def test_no_line_anchored_pattern_lets_whitespace_run_over_lines() -> None:
    """Regular-expression work is not counted above, so the rule is checked by construction: in a
    multi-line pattern searched over a whole paste, ``^\\s*`` (or ``\\s*$``) runs over every newline
    that follows each line start, quadratic in a paste of blank lines (blind round 15's conda-plan
    pattern hung on a megabyte of them). Blanks at a line's edge are ``[ \\t]*``."""
    patterns = _multiline_patterns()
    assert len(patterns) > 10  # the walk found the importers' patterns
    offending = [name for name, text in patterns if "^\\s*" in text or "\\s*$" in text or "^\\s+" in text]
    assert offending == []
