"""Fixes from the blind held-out round (#22): Triton off NVIDIA, capability checks, guarded helpers,
CUDA libraries named in an extension's build arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.scanners.python import scan_python

TRITON_KERNEL = """import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, n), tl.load(x_ptr + tl.arange(0, n)))
"""


def risk(tmp_path: Path, files: dict[str, str], target: str) -> str:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return audit(scan_tree(str(tmp_path)), None, parse_target(target)).verdict.risk


@pytest.mark.parametrize(
    ("target", "expected"), [("rocm:gfx942", "lower"), ("xpu", "lower"), ("mps", "higher")]
)
def test_plain_triton_kernels_run_on_the_rocm_and_xpu_builds_of_triton(
    tmp_path: Path, target: str, expected: str
) -> None:
    assert risk(tmp_path, {"k.py": TRITON_KERNEL}, target) == expected


def test_plain_triton_says_what_the_swap_is(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(TRITON_KERNEL)
    report = audit(scan_tree(str(tmp_path)), None, parse_target("rocm:gfx942"))
    finding = next(f for f in report.findings if f.rule == "cuda-only-import")
    assert "CUDA-only" not in finding.meaning
    assert "pytorch-triton-rocm" in finding.replacement


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu"])
def test_triton_inline_assembly_is_ptx_and_not_portable(tmp_path: Path, target: str) -> None:
    # The helper is called by a kernel: Triton compiles its PTX when that kernel launches (an uncalled
    # helper is never compiled: test_blind18_fixes).
    text = TRITON_KERNEL + (
        "\n\n@triton.jit\ndef f(x):\n"
        '    return tl.inline_asm_elementwise("cvt.rn.f16.f32 $0, $1;", "=h,r", [x], dtype=tl.float16,'
        " is_pure=True, pack=1)\n"
        "\n\n@triton.jit\ndef g(x_ptr, n: tl.constexpr):\n"
        "    tl.store(x_ptr + tl.arange(0, n), f(tl.load(x_ptr + tl.arange(0, n))))\n"
    )
    signals = list(scan_python("k.py", text))
    assert [s.subject for s in signals if s.kind == "inline-ptx"] == ["triton inline_asm_elementwise"]
    assert risk(tmp_path, {"k.py": text}, target) == "higher"


NCCL_PICK = """import torch


def backend():
    if torch.distributed.is_nccl_available():
        return "nccl"
    return "gloo"
"""


def test_an_availability_check_guards_what_it_wraps() -> None:
    signals = [s for s in scan_python("d.py", NCCL_PICK) if s.kind == "nccl-backend"]
    assert len(signals) == 1
    assert signals[0].guarded
    check = "    if torch.distributed.is_nccl_available():\n        return"
    unguarded = NCCL_PICK.replace(check, "    return")
    assert [s.guarded for s in scan_python("d.py", unguarded) if s.kind == "nccl-backend"] == [False]


HELPER = """import torch


def _nvidia_arch(i):
    return torch.cuda.get_device_capability(i)


def arch(device):
    if device == "cuda":
        return _nvidia_arch(0)
    return device
"""


def test_a_helper_called_only_under_a_device_guard_is_guarded() -> None:
    calls = [s for s in scan_python("a.py", HELPER) if s.subject == "torch.cuda.get_device_capability"]
    assert [s.guarded for s in calls] == [True]


@pytest.mark.parametrize(
    "extra",
    [
        "\n\ndef other():\n    return _nvidia_arch(1)\n",  # an unguarded caller
        "\n\nTABLE = {'cuda': _nvidia_arch}\n",  # passed as a value: callers unknown
    ],
)
def test_a_helper_with_any_unguarded_use_stays_unguarded(extra: str) -> None:
    signals = scan_python("a.py", HELPER + extra)
    calls = [s for s in signals if s.subject == "torch.cuda.get_device_capability"]
    assert [s.guarded for s in calls] == [False]


def test_a_method_is_not_taken_for_a_module_level_helper() -> None:
    text = HELPER.replace("def _nvidia_arch(i):", "class C:\n    def _nvidia_arch(i):").replace(
        "    return torch.cuda.get_device_capability(i)", "        return torch.cuda.get_device_capability(i)"
    )
    calls = [s for s in scan_python("a.py", text) if s.subject == "torch.cuda.get_device_capability"]
    assert [s.guarded for s in calls] == [False]


SETUP = """from torch.utils.cpp_extension import CUDAExtension
root = "."
ext = CUDAExtension(
    name="k",
    sources=["k.cu"],
    include_dirs=[f"{root}/dependencies/cutlass/include"],
    libraries=["cublas", "nvrtc"],
)
"""


def test_an_extension_names_its_cuda_libraries_in_its_build_arguments() -> None:
    subjects = sorted(s.subject for s in scan_python("setup.py", SETUP) if s.kind == "cuda-library")
    assert subjects == ["CUTLASS", "cuBLAS"]
    plain = SETUP.replace("cutlass", "mylib").replace('"cublas", ', "")
    assert [s for s in scan_python("setup.py", plain) if s.kind == "cuda-library"] == []


def test_cutlass_in_an_extension_is_higher_risk_on_rocm(tmp_path: Path) -> None:
    assert risk(tmp_path, {"setup.py": SETUP}, "rocm:gfx942") == "higher"
    assert risk(tmp_path, {"setup.py": SETUP.replace("cutlass", "mylib")}, "rocm:gfx942") == "moderate"
