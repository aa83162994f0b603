"""Opt-in native builds of real projects are read as opt-in (#22 blind rounds 49 and 51, both two levels off).

EasyOCR 1.7 builds the deformable convolution of its opt-in DBNet detector in a nested setup.py
(``DBNet/assets/ops/dcn/setup.py``: two CUDAExtensions under ``if torch.cuda.is_available()``) and imports
them only in a ``try`` (``from .. import deform_conv_cuda``), JIT-building them in the handler and falling
back to CPU ops: envsnap rated ROCm *higher* (four "kernels") where the truth is lower. torchani 2.9 JIT-
builds its cuAEV/MNP libraries only in its ``ani build-extensions`` command and loads them with
``torch.ops.load_library`` inside ``try ... except Exception``: rated *higher* everywhere, truth lower; and
that command's own ``from torch.utils.cpp_extension import load`` was lost, because a decorated function in
a long module was split into members like a class. Twins: the same builds without their guards keep their
findings; XPU has no hipify, so several extensions there still make a port.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit.model import AuditReport
from envsnap.audit.scanners.python import scan_python
from envsnap.audit.scanners.python_chunks import CHUNK_MIN_LINES
from tests.audit.conftest import audit_files

# EasyOCR 1.7.2 easyocr/DBNet/assets/ops/dcn/setup.py (whole).
DCN_SETUP = """\
import torch
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension
from torch.utils.cpp_extension import CppExtension
from torch.utils.cpp_extension import CUDAExtension

modules = [
        CppExtension('deform_conv_cpu', [
            'src/deform_conv_cpu.cpp',
            'src/deform_conv_cpu_kernel.cpp',
        ]),
]

if torch.cuda.is_available():
    modules.extend([
        CUDAExtension('deform_conv_cuda', [
            'src/deform_conv_cuda.cpp',
            'src/deform_conv_cuda_kernel.cu',
        ]),
        CUDAExtension('deform_pool_cuda', [
            'src/deform_pool_cuda.cpp',
            'src/deform_pool_cuda_kernel.cu'
        ])
    ])

setup(
    name='deform_conv',
    ext_modules=modules,
    cmdclass={'build_ext': BuildExtension})
"""
# EasyOCR 1.7.2 easyocr/DBNet/assets/ops/dcn/functions/deform_conv.py (the loader, trimmed).
DCN_LOADER = """\
import os
import warnings
import torch
from torch.utils import cpp_extension

dcn_dir = os.path.dirname(os.path.dirname(__file__))
try:
    from .. import {module}
    dcn_cuda_ready = True
except:
    try:
        {module} = cpp_extension.load(
                            name="{module}",
                            sources=[os.path.join(dcn_dir, 'src', "{module}.cpp"),
                                     os.path.join(dcn_dir, 'src', "{module}_kernel.cu")])
        dcn_cuda_ready = True
    except Exception as error:
        warnings.warn("Deformable convulution and DBNet will not be able to run on GPU.")
        dcn_cuda_ready = False
"""
KERNEL = "__global__ void {name}_kernel(float* out) {{ out[threadIdx.x] = 0.f; }}\n"
DCN = "easyocr/DBNet/assets/ops/dcn"


def _easyocr(loaders: bool = True) -> dict[str, str]:
    files = {"easyocr/__init__.py": "", f"{DCN}/setup.py": DCN_SETUP, f"{DCN}/__init__.py": ""}
    for module in ("deform_conv_cuda", "deform_pool_cuda"):
        files[f"{DCN}/src/{module}_kernel.cu"] = KERNEL.format(name=module)
        files[f"{DCN}/src/{module}.cpp"] = "#include <torch/extension.h>\n"
        if loaders:
            files[f"{DCN}/functions/{module}.py"] = DCN_LOADER.format(module=module)
    return files


def _raised(report: AuditReport) -> set[str]:
    return {f.rule for f in report.findings if f.risk != "lower"}


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_a_nested_setup_extension_imported_only_in_a_try_is_optional(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _easyocr(), target)
    assert report.verdict.risk == "lower"
    setup = f"{DCN}/setup"
    extensions = [f for f in report.findings if f.rule == "cuda-extension" and f.location.startswith(setup)]
    assert len(extensions) == 2
    assert all("optional extension" in f.meaning for f in extensions)


def test_on_rocm_several_hipified_extensions_are_one_build_not_several_ports(tmp_path: Path) -> None:
    # Twin: no guarded import, so the two CUDAExtensions are the project's own build.
    rocm = audit_files(tmp_path / "rocm", _easyocr(loaders=False), "rocm:gfx942")
    assert rocm.verdict.risk == "moderate"
    assert not any("kernels or compiled packages" in line for line in rocm.verdict.reasons)
    # Twin: three extensions on XPU, where nothing hipifies them, are three ports.
    files = _easyocr(loaders=False)
    files[f"{DCN}/setup.py"] = DCN_SETUP.replace(
        "    ])\n\nsetup(",
        "        CUDAExtension('deform_roi_cuda', ['src/deform_roi_cuda_kernel.cu']),\n    ])\n\nsetup(",
    )
    files[f"{DCN}/src/deform_roi_cuda_kernel.cu"] = KERNEL.format(name="deform_roi")
    assert audit_files(tmp_path / "xpu", files, "xpu").verdict.risk == "higher"
    # Twin: a 32-bit warp mask hipify cannot fix still makes ROCm higher.
    files[f"{DCN}/src/deform_roi_cuda_kernel.cu"] += (
        "__device__ float r(float v) { return __shfl_down_sync(0xffffffff, v, 1); }\n"
    )
    assert audit_files(tmp_path / "mask", files, "rocm:gfx942").verdict.risk == "higher"


# torchani 2.9.0 torchani/csrc/__init__.py (the cuAEV loader, trimmed) and cli.py's build command (trimmed).
TORCHANI_LOADER = """\
from pathlib import Path
import os
import torch

internal_path = Path(__file__).resolve().parent.parent
internal_suffix = ".pyd" if os.name == "nt" else ".so"
try:
    torch.ops.load_library(internal_path / f"cuaev{internal_suffix}")
    CUAEV_IS_INSTALLED = True
except Exception:
    CUAEV_IS_INSTALLED = False
"""
TORCHANI_CLI = '''\
import os
from pathlib import Path
from typer import Option, Typer

main = Typer()


@main.command("build-extensions")
def _build_extensions(
    all_sms: bool = Option(False, help="Build for all PyTorch supported sms"),
) -> None:
    r"""Build CUDA and C++ extensions"""
    import torch
    from torch.utils.cpp_extension import load

    this_dir = str(Path(__file__).parent.resolve())
    include_dirs = torch.utils.cpp_extension.include_paths(device_type="cuda")
    include_dirs.append(f"{this_dir}/csrc/")
    print("Building cuAEV extension...")
{padding}
    _ = load(
        name="cuaev",
        sources=[f"{this_dir}/csrc/cuaev.cpp", f"{this_dir}/csrc/aev.cu"],
        extra_include_paths=include_dirs,
        with_cuda=True,
        is_python_module=False,
    )
    print("Done!")
'''
AEV = (
    "__global__ void cuRadialAEVs(float* out) {\n"
    "  float v = out[threadIdx.x];\n"
    "  v += __shfl_down_sync(0xFFFFFFFF, v, 1);\n"
    "  out[threadIdx.x] = v;\n"
    "}\n"
)


def _torchani(loader: str) -> dict[str, str]:
    # Long enough to be parsed in parts, with the build command longer than a class is split at.
    padding = "\n".join(f"    print({n})" for n in range(100))
    constants = "\n".join(f"X{n} = {n}" for n in range(CHUNK_MIN_LINES))
    body = TORCHANI_CLI.replace("{padding}", padding) + "\n" + constants
    return {
        "torchani/__init__.py": "",
        "torchani/cli.py": body,
        "torchani/csrc/__init__.py": loader,
        "torchani/csrc/aev.cu": AEV,
        "torchani/csrc/cuaev.cpp": "#include <torch/extension.h>\n",
    }


def test_a_long_decorated_function_keeps_its_own_imports_when_parsed_in_parts() -> None:
    text = _torchani(TORCHANI_LOADER)["torchani/cli.py"]
    assert text.count("\n") > CHUNK_MIN_LINES
    found = [(s.kind, s.detail) for s in scan_python("torchani/cli.py", text) if s.kind == "cuda-extension"]
    assert found == [("cuda-extension", ("source=csrc/aev.cu", "module=cuaev"))]


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_a_jit_library_loaded_only_in_a_try_is_optional(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _torchani(TORCHANI_LOADER), target)
    assert _raised(report) == set()
    assert report.verdict.risk == "lower"
    aev = [f for f in report.findings if f.location.startswith("torchani/csrc/aev.cu")]
    assert aev
    assert all("try whose handler swallows" in f.meaning for f in aev)


@pytest.mark.parametrize(("target", "rule"), [("rocm:gfx942", "warp-mask-32bit"), ("xpu", "cuda-source")])
def test_twin_a_library_loaded_unguarded_is_the_main_path(tmp_path: Path, target: str, rule: str) -> None:
    unguarded = 'import torch\ntorch.ops.load_library("torchani/cuaev.so")\n'
    report = audit_files(tmp_path, _torchani(unguarded), target)
    assert rule in _raised(report)
    assert report.verdict.risk == "higher"


@pytest.mark.parametrize(
    "path",
    [
        "internal_path / name",  # no literal: nothing to name
        '"/"',
        '"' + "x" * 100_000 + '.so"',
        '"\\x1b[31mlib[red]cuaev[/red].so"',
    ],
    ids=["no-literal", "root", "huge", "escapes"],
)
def test_hostile_library_paths(tmp_path: Path, path: str) -> None:
    loader = TORCHANI_LOADER.replace('internal_path / f"cuaev{internal_suffix}"', path)
    report = audit_files(tmp_path, _torchani(loader), "xpu")
    assert report.verdict.risk == "higher"  # no library of that name: the build stays the main path
    assert all(len(f.code) < 400 for f in report.findings)
