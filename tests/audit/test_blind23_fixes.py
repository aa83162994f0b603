"""Fixes from blind round 23 (#22), each on an excerpt of the real project that showed it:

- AutoAWQ 0.2.9's setup.py passes ``install_requires=requirements`` with ``requirements = [...]`` above it:
  the list was not followed, so triton (a core requirement) read as undeclared and its guarded import as an
  opt-in.
- AutoAWQ imports its Triton GEMM module (``awq/modules/triton/gemm.py``, which imports triton at its top)
  only inside ``try: ... except ImportError`` with a PyTorch fallback: that module's imports are guarded
  too, so on MPS the Triton kernels are a missing fast path (moderate), not a rewrite (higher).
- open_clip 3.3's training script imports bitsandbytes only under ``if args.use_bnb_linear is not None:``, an
  argparse option (in another module) with no default: an opt-in feature, like one behind a switch parameter.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

import time
from pathlib import Path

from envsnap.audit.cli_switches import MAX_CALL_BYTES, off_options
from envsnap.audit.scanners.python import scan_python
from tests.audit.conftest import audit_files

# AutoAWQ 0.2.9 setup.py (lines 1-5, 34-44, 46-56, trimmed): the core requirements in a module-level list.
SETUP = """\
import os
from pathlib import Path
from setuptools import setup, find_packages

requirements = [
    "torch",
    "triton",
    "transformers>=4.45.0",
    "accelerate",
]

setup(
    packages=find_packages(),
    install_requires=requirements,
    extras_require={
        "kernels": ["autoawq-kernels", "flash-attn>=2.2.0"],
    },
)
"""

# AutoAWQ 0.2.9 awq/modules/triton/gemm.py (lines 17-27): vLLM's AWQ Triton kernels, triton imported at the
# top.
TRITON_GEMM = """\
import torch
import triton
import triton.language as tl

AWQ_TRITON_SUPPORTED_GROUP_SIZES = [-1, 32, 64, 128]

def get_same_device_cm(t):
    if t.device.type == 'xpu':
        return torch.xpu.device(t.device.index)
    else:
        return torch.cuda.device(t.device.index)
"""

# AutoAWQ 0.2.9 awq/modules/linear/gemm.py (lines 1-21, 46-57 trimmed): the only importer of the Triton
# module, in a guard; its CUDA kernel calls are what makes the scan parse it (a file with no trigger token is
# not parsed).
LINEAR_GEMM = """\
import torch
from awq.utils.module import try_import

# NOTE: We check if awq_ext or triton is available. awq_ext will be preferred if both are installed.

awq_ext, msg = try_import("awq_ext")

try:
    from awq.modules.triton.gemm import awq_gemm_triton, awq_dequantize_triton

    # covers CUDA, ROCm and XPU. If we can import triton, then we can use it.
    TRITON_AVAILABLE = True

except ImportError:
    TRITON_AVAILABLE = False


def forward(x, qweight, scales, qzeros):
    if awq_ext is not None:
        return awq_ext.gemm_forward_cuda(x.reshape(-1, x.shape[-1]), qweight, scales, qzeros, 8)
    return torch.matmul(x, qweight)
"""

# open_clip 3.3.0 src/open_clip_train/main.py (lines 254-263): bitsandbytes behind a command-line option.
MAIN = """\
import torch


def main(args):
    model = create_model()
    if args.use_bnb_linear is not None:
        print('=> using a layer from bitsandbytes.')
        import bitsandbytes as bnb
        from open_clip.utils import replace_linear
        linear_replacement_cls = getattr(bnb.nn.triton_based_modules, args.use_bnb_linear)
        replace_linear(model, linear_replacement_cls)
"""

# open_clip 3.3.0 src/open_clip_train/params.py (lines 464-469): the option, with no default.
PARAMS = """\
import argparse


def parse_args(args):
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--use-bnb-linear",
        default=None,
        help='Replace the network linear layers from the bitsandbytes library. '
        'Allows int8 training/inference, etc.'
    )
    return parser.parse_args(args)
"""


def _requirements(text: str) -> list[tuple[str, int | None]]:
    return [(s.subject, s.line) for s in scan_python("setup.py", text) if s.kind == "requirement"]


# ---------------------------------------------------------------------------- fix 1: requirements variable


def test_setup_py_requirements_in_a_module_level_list_are_read() -> None:
    assert ("triton", 7) in _requirements(SETUP)


def test_a_requirements_list_built_by_a_call_is_not_read_as_requirements() -> None:
    # Twin: `requirements = read("requirements.txt")` names a file, not a package.
    text = SETUP.replace(
        'requirements = [\n    "torch",\n    "triton",', 'requirements = read("triton",\n    "torch",'
    )
    text = text.replace('    "accelerate",\n]', '    "accelerate",\n)')
    assert [name for name, _ in _requirements(text)] == ["flash-attn"]


def test_an_inline_install_requires_list_is_read_as_before() -> None:
    # Twin: the literal form was already read, and still is, once.
    text = SETUP.replace("install_requires=requirements", 'install_requires=["triton"]')
    assert [name for name, _ in _requirements(text)].count("triton") == 1


# ---------------------------------------------------------------------------- fix 2: optional module


def _triton_imports(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, str]]:
    result = audit_files(tmp_path, files, "mps")
    return [(f.location, f.risk) for f in result.findings if f.rule == "cuda-only-import"]


def test_a_module_imported_only_in_an_import_guard_has_guarded_imports(tmp_path: Path) -> None:
    files = {"awq/modules/triton/gemm.py": TRITON_GEMM, "awq/modules/linear/gemm.py": LINEAR_GEMM}
    found = _triton_imports(tmp_path, files)
    assert ("awq/modules/triton/gemm.py:2", "moderate") in found
    assert all(risk != "higher" for _, risk in found)


def test_a_relative_import_in_the_guard_names_the_same_module(tmp_path: Path) -> None:
    guard = LINEAR_GEMM.replace("from awq.modules.triton.gemm import", "from ..triton.gemm import")
    files = {"awq/modules/triton/gemm.py": TRITON_GEMM, "awq/modules/linear/gemm.py": guard}
    assert ("awq/modules/triton/gemm.py:2", "moderate") in _triton_imports(tmp_path, files)


def test_a_module_imported_without_a_guard_keeps_its_imports(tmp_path: Path) -> None:
    # Twin: the same importer with no try/except needs triton to load: a rewrite on MPS.
    plain = LINEAR_GEMM.replace("try:\n    from", "if True:\n    from").replace(
        "except ImportError:", "else:"
    )
    files = {"awq/modules/triton/gemm.py": TRITON_GEMM, "awq/modules/linear/gemm.py": plain}
    assert ("awq/modules/triton/gemm.py:2", "higher") in _triton_imports(tmp_path, files)
    assert audit_files(tmp_path, files, "mps").verdict.risk == "higher"


def test_autoawq_on_mps_is_moderate_with_its_required_triton(tmp_path: Path) -> None:
    files = {
        "setup.py": SETUP,
        "awq/modules/triton/gemm.py": TRITON_GEMM,
        "awq/modules/linear/gemm.py": LINEAR_GEMM,
    }
    result = audit_files(tmp_path, files, "mps")
    assert result.verdict.risk == "moderate"
    requirement = [
        f for f in result.findings if f.rule == "cuda-only-requirement" and f.location == "setup.py:7"
    ]
    assert requirement
    assert requirement[0].risk == "moderate"


# ---------------------------------------------------------------------------- fix 3: command-line switch


def _bnb(tmp_path: Path, params: str) -> tuple[str, str]:
    files = {"src/open_clip_train/main.py": MAIN, "src/open_clip_train/params.py": params}
    result = audit_files(tmp_path, files, "mps")
    risks = [f.risk for f in result.findings if f.rule == "cuda-only-import"]
    return result.verdict.risk, risks[0]


def test_an_import_behind_an_option_with_no_default_is_opt_in(tmp_path: Path) -> None:
    assert _bnb(tmp_path, PARAMS) == ("lower", "lower")


def test_a_store_true_option_is_off_by_default_too(tmp_path: Path) -> None:
    params = PARAMS.replace("default=None,", 'action="store_true",')
    assert _bnb(tmp_path, params) == ("lower", "lower")


def test_an_option_on_by_default_keeps_the_import(tmp_path: Path) -> None:
    # Twin: with a default layer the bitsandbytes path runs unless the user turns it off.
    params = PARAMS.replace("default=None,", 'default="SwitchBackLinearGlobal",')
    assert _bnb(tmp_path, params) == ("moderate", "moderate")


def test_a_required_option_keeps_the_import(tmp_path: Path) -> None:
    params = PARAMS.replace("default=None,", "required=True,")
    assert _bnb(tmp_path, params) == ("moderate", "moderate")


def test_an_option_defined_nowhere_keeps_the_import(tmp_path: Path) -> None:
    # Twin: `args` may be anything when no add_argument names the option.
    assert _bnb(tmp_path, "import argparse\n") == ("moderate", "moderate")


# ---------------------------------------------------------------------------- hostile input


def test_markup_escapes_and_parentheses_in_a_help_text_are_read() -> None:
    text = (
        b'p.add_argument("--use-bnb-linear", help="<b>(int8)</b> \\"x\\" )\'", default=None)\n'
        b'p.add_argument("-u", "--use_fast", help="a ) b", default=False)\n'
    )
    assert off_options({"use_bnb_linear", "use_fast"}, [text]) == {"use_bnb_linear", "use_fast"}


def test_a_huge_help_text_leaves_the_option_unknown() -> None:
    text = (
        'p.add_argument("--use-bnb-linear", help="' + "x)" * MAX_CALL_BYTES + '", default=None)\n'
    ).encode()
    assert off_options({"use_bnb_linear"}, [text]) == set()


def test_a_million_unclosed_calls_cost_a_bounded_number_of_reads() -> None:
    text = b'p.add_argument("--use-bnb-linear", default=[ ) ) (\n' * 1_000_000
    started = time.perf_counter()
    assert off_options({"use_bnb_linear"}, [text]) == set()
    assert time.perf_counter() - started < 5


def test_an_unclosed_call_and_odd_names_are_refused() -> None:
    text = b'p.add_argument("--use-bnb-linear", default=None\n' + b"\xff\xfe" * 10
    assert off_options({"use_bnb_linear", "a.b", ""}, [text]) == set()


def test_a_secret_in_the_import_line_is_redacted(tmp_path: Path) -> None:
    main = MAIN.replace(
        "import bitsandbytes as bnb", "import bitsandbytes as bnb  # token=hf_abcdefghijklmnopqrstuvwxyz0123"
    )
    files = {"src/open_clip_train/main.py": main, "src/open_clip_train/params.py": PARAMS}
    result = audit_files(tmp_path, files, "mps")
    assert all("hf_abcdefghijklmnopqrstuvwxyz0123" not in f.code for f in result.findings)
