"""Fixes from blind round 28 (#22), each on an excerpt of the real project that showed it (hqq 0.2.8.post1
sdist, auto-round 0.16.1 wheel; PyPI, see tests/data/projects/real-*/SOURCE.md):

- hqq builds its ``hqq_aten`` CUDA extension in a separate setup script and imports it only in ``try:
  import hqq_aten ... except Exception``: its kernels were judged as a required build (HIGHER on XPU/MPS).
  An extension whose module the project imports only in a guard is optional now, and so are its sources.
- auto-round's Triton NeUQI sweep rounds with inline PTX, in a module its only importer loads in ``try``
  with a torch.compile fallback: one step down (an optional fast path), not a build that fails.
- auto-round's backend table ``BackendInfo(device=["cuda"], ...)``: a list of device types is a table of
  supported devices, not a device argument.
- auto-round's ``triton_utils/kernels.py`` (and hqq's ``utils/vllm.py``) import a package the project does
  not require at their top, and no module loads them: an opt-in module, as if the import sat in a function.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.audit.conftest import audit_files, raised

# hqq 0.2.8.post1 hqq/kernels/setup_cuda.py (whole) and the head of hqq_aten_cuda_kernel.cu.
SETUP_CUDA = """\
from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension, BuildExtension

setup(
    name="hqq_aten",
    ext_modules=[
        CUDAExtension(
            "hqq_aten",
            [
                "hqq_aten_cuda.cpp",
                "hqq_aten_cuda_kernel.cu",
            ],
        )
    ],
    extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "--use_fast_math"]},
    cmdclass={"build_ext": BuildExtension},
)
"""
KERNEL = """\
#include <torch/extension.h>
#include <cuda.h>
#include <cuda_runtime.h>

template <typename scalar_t>
__global__ void unpack_4bit_u8_kernel(unsigned char* __restrict__ Wq_packed, \
unsigned char* Wq_unpacked, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i >= n) return;
    Wq_unpacked[i] = (Wq_packed[i] & 0xF0) >> 4;
}

torch::Tensor unpack_4bit_u8(torch::Tensor Wq_packed) {
    unpack_4bit_u8_kernel<float><<<1, 256>>>(Wq_packed.data_ptr<unsigned char>(), nullptr, 0);
    return Wq_packed;
}
"""
# hqq 0.2.8.post1 hqq/core/quantize.py (trimmed): the extension is imported in a guard.
QUANTIZE_GUARDED = """\
import torch

# Check Aten/CUDA backend if available
hqq_aten_is_available = False
try:
    import hqq_aten
    hqq_aten_is_available = True
except Exception:
    hqq_aten = None
    hqq_aten_is_available = False


def quantize(W_q, meta, device):
    W_q = W_q.to(device)
    torch.cuda.empty_cache()
    return W_q, meta
"""
QUANTIZE_EAGER = QUANTIZE_GUARDED.replace("try:\n    import hqq_aten", "import hqq_aten\ntry:\n    pass")


def _hqq(quantize: str) -> dict[str, str]:
    return {
        "hqq/__init__.py": "",
        "hqq/core/__init__.py": "",
        "hqq/core/quantize.py": quantize,
        "hqq/kernels/setup_cuda.py": SETUP_CUDA,
        "hqq/kernels/hqq_aten_cuda_kernel.cu": KERNEL,
    }


def test_an_extension_imported_only_in_a_guard_is_optional(tmp_path: Path) -> None:
    for target in ("xpu", "mps", "rocm:gfx942"):
        result = audit_files(tmp_path, _hqq(QUANTIZE_GUARDED), target)
        assert result.verdict.risk == "lower", target
        assert {"cuda-source", "cuda-extension"} & raised(result) == set(), target


def test_an_extension_imported_unguarded_is_still_required(tmp_path: Path) -> None:
    # Twin: the same extension imported at the top of the module: the package needs it built.
    result = audit_files(tmp_path, _hqq(QUANTIZE_EAGER), "xpu")
    assert result.verdict.risk == "higher"
    assert "cuda-source" in raised(result)


def test_an_extension_named_by_an_expression_is_not_matched(tmp_path: Path) -> None:
    # Twin: a name that is no plain string says nothing about which module it builds.
    files = _hqq(QUANTIZE_GUARDED)
    files["hqq/kernels/setup_cuda.py"] = SETUP_CUDA.replace(
        'CUDAExtension(\n            "hqq_aten",', "CUDAExtension(\n            NAME,"
    )
    assert files["hqq/kernels/setup_cuda.py"] != SETUP_CUDA
    result = audit_files(tmp_path, files, "xpu")
    assert result.verdict.risk == "higher"


def test_an_extension_name_on_hostile_input(tmp_path: Path) -> None:
    # A huge, marked-up name matches nothing and is not echoed back into the report.
    files = _hqq(QUANTIZE_GUARDED)
    files["hqq/kernels/setup_cuda.py"] = SETUP_CUDA.replace(
        '"hqq_aten",\n            [', '"<script>\\x1b[31m' + "a" * 100_000 + '",\n            ['
    )
    start = time.perf_counter()
    result = audit_files(tmp_path, files, "xpu")
    assert time.perf_counter() - start < 30
    assert result.verdict.risk == "higher"
    assert not any("<script>" in f.meaning for f in result.findings)


# ---------------------------------------------------------------------------- optional Triton inline PTX

# auto-round 0.16.1 auto_round_extension/triton/neuqi_sweep.py (trimmed).
NEUQI_SWEEP = """\
import torch

try:
    import triton
    import triton.language as tl

    _TRITON_IMPORT_ERROR = None
except Exception as e:  # pragma: no cover - depends on host toolchain
    triton = None
    tl = None
    _TRITON_IMPORT_ERROR = e


if triton is not None:

    @triton.jit
    def _rint_f32(x):
        \"\"\"Native round-half-to-even: cvt.rni.f32.f32 (exact torch.round).\"\"\"
        return tl.inline_asm_elementwise("cvt.rni.f32.f32 $0, $1;", "=r,r", [x], \
dtype=tl.float32, is_pure=True, pack=1)

    @triton.jit
    def _neuqi_sweep_kernel(data_ptr, loss_ptr, C):
        x = tl.load(data_ptr)
        tl.store(loss_ptr, _rint_f32(x))


def neuqi_sweep_triton(data, loss):
    _neuqi_sweep_kernel[(1,)](data, loss, data.shape[0])
    return loss
"""
# auto-round 0.16.1 auto_round/data_type/neuqi.py (trimmed): the only importer, in a guard.
NEUQI_GUARDED = """\
import logging

logger = logging.getLogger(__name__)
_triton_sweep = None
_triton_checked = False


def _triton_sweep_fn():
    \"\"\"Resolve the extension Triton sweep once; ``None`` when unavailable.\"\"\"
    global _triton_sweep, _triton_checked
    if not _triton_checked:
        _triton_checked = True
        try:
            from auto_round_extension.triton.neuqi_sweep import neuqi_sweep_triton

            _triton_sweep = neuqi_sweep_triton
        except Exception as e:
            logger.info("[NeUQI] Triton sweep unavailable (%s); using the torch.compile sweeps", e)
            _triton_sweep = None
    return _triton_sweep
"""
NEUQI_EAGER = "from auto_round_extension.triton.neuqi_sweep import neuqi_sweep_triton\n"


def _neuqi(importer: str) -> dict[str, str]:
    return {
        "auto_round/__init__.py": "",
        "auto_round/data_type/__init__.py": "",
        "auto_round/data_type/neuqi.py": importer,
        "auto_round_extension/__init__.py": "",
        "auto_round_extension/triton/__init__.py": "",
        "auto_round_extension/triton/neuqi_sweep.py": NEUQI_SWEEP,
    }


def _ptx_risks(tmp_path: Path, importer: str) -> set[str]:
    result = audit_files(tmp_path, _neuqi(importer), "rocm:gfx942")
    return {f.risk for f in result.findings if f.rule == "inline-ptx"}


def test_triton_ptx_in_an_optional_module_is_a_lost_fast_path(tmp_path: Path) -> None:
    assert _ptx_risks(tmp_path, NEUQI_GUARDED) == {"moderate"}


def test_triton_ptx_in_a_module_imported_unguarded_stays_higher(tmp_path: Path) -> None:
    # Twin: the same kernel module imported at the top of its importer.
    assert _ptx_risks(tmp_path, NEUQI_EAGER) == {"higher"}


# ---------------------------------------------------------------------------- device lists in tables

# auto-round 0.16.1 auto_round/inference/backend.py (trimmed): one row per kernel backend.
BACKEND_TABLE = """\
from dataclasses import dataclass


@dataclass
class BackendInfo:
    device: list
    bits: list
    priority: int = 0


BackendInfos = {}
BackendInfos["auto_gptq:exllamav2"] = BackendInfo(
    device=["cuda"],
    bits=[4],
    priority=3,
)
BackendInfos["mlx"] = BackendInfo(
    device=["cpu", "mps"],  # MLX runs on Apple Silicon (CPU or MPS)
    bits=[2, 3, 4, 5, 6, 8],
    priority=5,
)
"""


def test_a_list_of_devices_in_a_table_is_no_device_argument(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"auto_round/inference/backend.py": BACKEND_TABLE}, "mps")
    assert "hardcoded-cuda-device" not in raised(result)


def test_a_single_cuda_device_keyword_stays(tmp_path: Path) -> None:
    # Twin: a tensor created with device="cuda" is a hard-coded device.
    code = 'import torch\n\nx = torch.zeros(4, device="cuda")\n'
    result = audit_files(tmp_path, {"pkg/make.py": code}, "mps")
    assert "hardcoded-cuda-device" in raised(result)


# ---------------------------------------------------------------------------- modules nothing loads

# auto-round 0.16.1 auto_round_extension/triton/triton_utils/kernels.py and custom_autotune.py (imports).
KERNELS = """\
from logging import getLogger

import torch
import triton
import triton.language as tl

from . import custom_autotune

logger = getLogger(__name__)
"""
CUSTOM_AUTOTUNE = "import builtins\nimport math\nimport time\n\nimport triton\n"
# auto-round 0.16.1 METADATA (requirements, trimmed): triton is not one of them.
AUTO_ROUND_METADATA = """\
Metadata-Version: 2.4
Name: auto-round
Version: 0.16.1
Requires-Dist: accelerate
Requires-Dist: torch
Requires-Dist: transformers>=4.38
"""


def _triton_utils(extra: dict[str, str] | None = None, metadata: str = AUTO_ROUND_METADATA) -> dict[str, str]:
    return {
        "auto_round-0.16.1.dist-info/METADATA": metadata,
        "auto_round_extension/__init__.py": "",
        "auto_round_extension/triton/__init__.py": "",
        "auto_round_extension/triton/triton_utils/__init__.py": "",
        "auto_round_extension/triton/triton_utils/kernels.py": KERNELS,
        "auto_round_extension/triton/triton_utils/custom_autotune.py": CUSTOM_AUTOTUNE,
        **(extra or {}),
    }


def test_modules_nothing_loads_import_an_undeclared_package_as_an_opt_in(tmp_path: Path) -> None:
    result = audit_files(tmp_path, _triton_utils(), "mps")
    assert "cuda-only-import" not in raised(result)


def test_a_module_the_package_loads_keeps_its_import(tmp_path: Path) -> None:
    # Twin: the package's __init__ imports kernels.py at its top: triton is needed to import the package.
    init = {"auto_round_extension/triton/__init__.py": "from .triton_utils.kernels import logger\n"}
    result = audit_files(tmp_path, _triton_utils(init), "mps")
    assert "cuda-only-import" in raised(result)


def test_a_required_package_keeps_its_import(tmp_path: Path) -> None:
    # Twin: the project requires triton: installing it is no opt-in.
    metadata = AUTO_ROUND_METADATA + "Requires-Dist: triton\n"
    result = audit_files(tmp_path, _triton_utils(metadata=metadata), "mps")
    assert "cuda-only-import" in raised(result)


def test_a_script_outside_a_package_keeps_its_import(tmp_path: Path) -> None:
    # Twin: a script (no __init__.py beside it) is run, not imported.
    files = {"auto_round-0.16.1.dist-info/METADATA": AUTO_ROUND_METADATA, "tools/kernels.py": KERNELS}
    result = audit_files(tmp_path, files, "mps")
    assert "cuda-only-import" in raised(result)
