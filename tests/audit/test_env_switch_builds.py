"""A CUDA extension built only when the user sets an environment variable is optional (#22 rounds 42, 43).

basicsr 1.4.2 JIT-loads its ops only under ``BASICSR_JIT=True`` (else a prebuilt module in a ``try``), and
fairscale 0.4.13 declares its fused Adam ``CUDAExtension`` only under ``BUILD_CUDA_EXTENSIONS=1``: on a fresh
install neither is built, and the project runs without them. Both were one level off on every target in the
measurement rounds. Twins: a variable read on by default, a comparison that turns the build off, an unrelated
``if``. And the scanner's hot-line prefilter: a file whose only trigger is a ``.cu`` file name is parsed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from envsnap.audit.scanners.python import scan_python
from envsnap.audit.scanners.python_shapes import env_switch, env_switches
from envsnap.audit.scanners.python_trigger import trigger_lines
from tests.audit.conftest import audit_files, raised

# basicsr 1.4.2 basicsr/ops/fused_act/fused_act.py (head, trimmed).
FUSED_ACT = """\
import os
import torch
from torch import nn
from torch.autograd import Function

BASICSR_JIT = os.getenv('BASICSR_JIT')
if BASICSR_JIT == 'True':
    from torch.utils.cpp_extension import load
    module_path = os.path.dirname(__file__)
    fused_act_ext = load(
        'fused',
        sources=[
            os.path.join(module_path, 'src', 'fused_bias_act.cpp'),
            os.path.join(module_path, 'src', 'fused_bias_act_kernel.cu'),
        ],
    )
else:
    try:
        from . import fused_act_ext
    except ImportError:
        pass
"""
KERNEL = "__global__ void fused_bias_act_kernel(float* out) { out[threadIdx.x] = 0.f; }\n"

# fairscale 0.4.13 setup.py (trimmed).
FAIRSCALE_SETUP = """\
import os
import setuptools

extensions = []
cmdclass = {}
if os.getenv("BUILD_CUDA_EXTENSIONS", "0") == "1":
    from torch.utils.cpp_extension import BuildExtension, CUDAExtension

    extensions.extend(
        [
            CUDAExtension(
                name="fairscale.fused_adam_cuda",
                include_dirs=[os.path.join(this_dir, "fairscale/clib/fused_adam_cuda")],
                sources=[
                    "fairscale/clib/fused_adam_cuda/fused_adam_cuda.cpp",
                    "fairscale/clib/fused_adam_cuda/fused_adam_cuda_kernel.cu",
                ],
            )
        ]
    )
    cmdclass["build_ext"] = BuildExtension

setuptools.setup(name="fairscale", ext_modules=extensions, cmdclass=cmdclass)
"""


def _basicsr(text: str) -> dict[str, str]:
    return {
        "basicsr/ops/fused_act/fused_act.py": text,
        "basicsr/ops/fused_act/src/fused_bias_act_kernel.cu": KERNEL,
    }


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_a_jit_build_behind_an_environment_switch_is_optional(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, _basicsr(FUSED_ACT), target)
    assert not raised(result) & {"cuda-extension", "cuda-source"}
    assert result.verdict.risk == "lower"
    # Twin: the same load() at module level, no switch, is the project's extension.
    bare = FUSED_ACT.replace("if BASICSR_JIT == 'True':\n", "if True:\n")
    twin = audit_files(tmp_path / "bare", _basicsr(bare), target)
    assert raised(twin) & {"cuda-extension", "cuda-source"}


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_a_setup_extension_behind_an_environment_switch_is_optional(tmp_path: Path, target: str) -> None:
    files = {"setup.py": FAIRSCALE_SETUP, "fairscale/clib/fused_adam_cuda/fused_adam_cuda_kernel.cu": KERNEL}
    result = audit_files(tmp_path, files, target)
    assert not raised(result) & {"cuda-extension", "cuda-source"}
    # Twin: the variable on by default ("1" when unset) builds it on every install.
    on = FAIRSCALE_SETUP.replace(
        'os.getenv("BUILD_CUDA_EXTENSIONS", "0")', 'os.getenv("BUILD_CUDA_EXTENSIONS", "1")'
    )
    twin = audit_files(tmp_path / "on", {**files, "setup.py": on}, target)
    assert raised(twin) & {"cuda-extension", "cuda-source"}


@pytest.mark.parametrize(
    ("test", "switch"),
    [
        ("BASICSR_JIT == 'True'", True),
        ('os.getenv("BUILD_CUDA_EXTENSIONS", "0") == "1"', True),
        ('os.environ.get("WITH_CUDA") == "true"', True),
        ("BASICSR_JIT == '0'", False),  # the build off: not an opt-in
        ("BASICSR_JIT != 'True'", False),
        ('os.getenv("X", "1") == "1"', False),  # on unless the user turns it off
        ("OTHER == 'True'", False),  # a name not bound from the environment
        ('os.getenv(NAME) == "1"', False),  # not a literal variable name
    ],
)
def test_what_an_environment_switch_is(test: str, switch: bool) -> None:
    flags = env_switches(["BASICSR_JIT = os.getenv('BASICSR_JIT')", "OTHER = compute()"])
    assert flags == frozenset({"BASICSR_JIT"})
    assert env_switch(ast.parse(test, mode="eval").body, flags) is switch


def test_environment_switch_reader_on_hostile_text() -> None:
    # Long names, odd quotes, escapes and markup in the variable: read or refused, never a crash.
    lines = [
        "A = os.getenv('" + "X" * 5000 + "')",
        "B = os.getenv('\x1b[2J')",
        'C = os.environ.get("[bold]x[/bold]", None)',
        "D = os.getenv('OK')  # " + "y" * 10000,
        "E = os.getenv('Q', '1')",
    ]
    assert env_switches(lines) == frozenset({"D"})


def test_a_file_named_only_by_its_cuda_source_is_parsed() -> None:
    # The `.cu` trigger token has its own prefilter anchor: the load() line of a file that names no other
    # trigger (basicsr's upfirdn2d.py sources list) is a hot line, so the file is parsed (#22 round 42).
    text = (
        "from torch.utils.cpp_extension import load\next = load('up', sources=['up.cpp', 'up_kernel.cu'])\n"
    )
    assert trigger_lines(text.encode()) == [2]
    assert [s.kind for s in scan_python("up.py", text, trigger_lines(text.encode()))].count(
        "cuda-extension"
    ) == 1
