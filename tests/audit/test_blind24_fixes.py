"""Fixes from blind round 24 (#22), each on an excerpt of the real project that showed it (ultralytics
8.4.190, peft 0.21.2; PyPI wheels, see tests/data/projects/real-*/SOURCE.md):

- A released package's core metadata (a wheel's ``METADATA``, an sdist's ``PKG-INFO``) was not read, so a
  wheel's requirements were unknown and nothing could be called undeclared. ``Requires-Dist`` headers are
  read now; an ``extra ==`` marker makes one optional, unless every requirement is an extra's (the extras are
  then the install's flavours).
- An import inside a function of a package the project never declares (ultralytics' TensorRT backend and
  exporter, peft's DeepSpeed ZeRO-3 helpers) was judged like a module-level one: ultralytics was HIGHER on
  every target. It is an opt-in now, like a guarded import of an undeclared package; and the device code of
  that function (``torch.cuda.device``/``CUDAGraph`` around the TensorRT engine) runs only for that opt-in.
- ``use_ids = initialized and dist.get_backend() == "nccl"`` then ``... if use_ids else ...``: a local name
  bound to a device test is that test.
- ``{"tensor(double)": (torch.float64, np.float64), ...}``: a table of (torch, numpy) dtype pairs translating
  ONNX Runtime's type names makes no float64 tensor, like the plain table of round 19.
- A ``torch.utils.cpp_extension.load`` inside a ``try`` whose handler swallows the failure (peft's BOFT:
  ``fbd_cuda = None``, then PyTorch ops) is a fast path with a fallback, not CUDA code to port.
- A module the project imports only lazily (peft's ``tuners/lora/bnb.py``, imported under
  ``if is_bnb_available():`` and in a module ``__getattr__``) loads its own top-level imports lazily too.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

import time
from pathlib import Path

from envsnap.audit.scanners.build import scan_build
from envsnap.audit.scanners.python_local import local_imports
from envsnap.audit.walk import classify
from tests.audit.conftest import PROJECTS, audit_files, raised

# peft 0.21.2 peft-0.21.2.dist-info/METADATA (headers, trimmed), then the README body.
PEFT_METADATA = """\
Metadata-Version: 2.4
Name: peft
Version: 0.21.2
Requires-Dist: numpy>=1.17
Requires-Dist: torch>=1.13.0
Requires-Dist: transformers
Requires-Dist: accelerate>=0.21.0
Provides-Extra: test
Requires-Dist: pytest; extra == "test"
Requires-Dist: diffusers; extra == "test"

Requires-Dist: flash-attn
<h1 align="center"> <p>PEFT</p></h1>
"""

# ipex-llm 2.2.0 METADATA (trimmed): every requirement is an extra's; `pip install ipex-llm[xpu]` installs.
IPEX_METADATA = """\
Metadata-Version: 2.1
Name: ipex-llm
Provides-Extra: xpu
Requires-Dist: torch ==2.1.0a0 ; extra == 'xpu'
Requires-Dist: bigdl-core-xe-21 ==2.6.0 ; extra == 'xpu'
Provides-Extra: all
Requires-Dist: torch ==2.1.2+cpu ; (platform_system == "Linux") and extra == 'all'
"""

# ultralytics 8.4.190 ultralytics/utils/export/engine.py (lines 1-25): TensorRT imported in the function.
TRT_LOGGER = """\
from functools import lru_cache

import torch


@lru_cache
def get_tensorrt_logger():
    \"\"\"Return the shared TensorRT logger, kept alive for every builder and inference runtime.\"\"\"
    import tensorrt as trt

    return trt.Logger(trt.Logger.INFO)
"""

# ultralytics 8.4.190 ultralytics/nn/backends/tensorrt.py (lines 25-57, 115-124, trimmed): the loader.
TRT_BACKEND = """\
import torch

from ultralytics.utils.checks import check_tensorrt


class TensorRTBackend:
    def load_model(self, weight):
        try:
            import tensorrt as trt
        except ImportError:
            check_tensorrt()
            import tensorrt as trt

        if self.device.type == "cpu":
            self.device = torch.device("cuda:0")

        with open(weight, "rb") as f, torch.cuda.device(self.device):
            runtime = trt.Runtime(self.logger)
            engine = runtime.deserialize_cuda_engine(f.read())
        stream, graph = torch.cuda.Stream(self.device), torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            self.context.execute_async_v3(stream.cuda_stream)
"""

# ultralytics 8.4.190 METADATA (trimmed): torch and friends, no TensorRT anywhere.
ULTRALYTICS_METADATA = """\
Metadata-Version: 2.4
Name: ultralytics
Requires-Dist: torch>=1.8.0
Requires-Dist: torchvision>=0.9.0
Requires-Dist: onnx>=1.12.0; platform_system != "Darwin" and extra == "export-base"
"""

# ultralytics 8.4.190 ultralytics/utils/torch_utils.py (lines 76-86): a barrier pinned to the CUDA device
# only under the NCCL backend, through a flag.
ZERO_FIRST = """\
from contextlib import contextmanager

import torch
import torch.distributed as dist


@contextmanager
def torch_distributed_zero_first(local_rank: int):
    initialized = dist.is_available() and dist.is_initialized()
    use_ids = initialized and dist.get_backend() == "nccl"

    if initialized and local_rank not in {-1, 0}:
        dist.barrier(device_ids=[torch.cuda.current_device()]) if use_ids else dist.barrier()
    yield
"""

# ultralytics 8.4.190 ultralytics/nn/backends/onnx.py (lines 138-147): ONNX Runtime output types.
ORT_DTYPES = """\
import numpy as np
import torch

_ORT_DTYPES = {
    "tensor(float16)": (torch.float16, np.float16),
    "tensor(float)": (torch.float32, np.float32),
    "tensor(double)": (torch.float64, np.float64),
    "tensor(uint8)": (torch.uint8, np.uint8),
    "tensor(int64)": (torch.int64, np.int64),
}
"""

# peft 0.21.2 peft/tuners/boft/layer.py (lines 77-103, trimmed): the JIT build and its fallback.
BOFT = """\
import os
import warnings

import torch

_FBD_CUDA = None


def get_fbd_cuda():
    global _FBD_CUDA

    if _FBD_CUDA is not None:
        return _FBD_CUDA

    from torch.utils.cpp_extension import load

    curr_dir = os.path.dirname(__file__)
    try:
        fbd_cuda = load(
            name="fbd_cuda",
            sources=[f"{curr_dir}/fbd/fbd_cuda.cpp", f"{curr_dir}/fbd/fbd_cuda_kernel.cu"],
            verbose=True,
        )
    except Exception as e:
        warnings.warn(f"Failed to load the CUDA extension: {e}, check if ninja is available.")
        fbd_cuda = None

    _FBD_CUDA = fbd_cuda
    return _FBD_CUDA
"""
FBD_KERNEL = (PROJECTS / "real-peft/peft/tuners/boft/fbd/fbd_cuda_kernel.cu").read_text(encoding="utf-8")

# peft 0.21.2 peft/tuners/lora/bnb.py (lines 14-22), __init__.py (lines 69-73) and model.py (lines 524-528).
LORA_BNB = """\
from __future__ import annotations

import warnings

import bitsandbytes as bnb
import torch
"""
LORA_INIT = """\
from peft.import_utils import is_bnb_available


def __getattr__(name):
    if (name == "Linear8bitLt") and is_bnb_available():
        from .bnb import Linear8bitLt

        return Linear8bitLt
"""
LORA_MODEL = """\
from peft.import_utils import is_bnb_available


def _create_new_module(lora_config, adapter_name, target, **kwargs):
    dispatchers = []
    # avoid eager bnb import
    if is_bnb_available():
        from .bnb import dispatch_bnb_8bit

        dispatchers.append(dispatch_bnb_8bit)
"""


# ---------------------------------------------------------------------------- core metadata


def test_core_metadata_files_are_read_for_their_requirements() -> None:
    assert classify("METADATA") == "metadata"
    assert classify("PKG-INFO") == "metadata"
    signals = list(scan_build("peft-0.21.2.dist-info/METADATA", PEFT_METADATA, "metadata"))
    declared = {s.subject: s for s in signals}
    assert {"numpy", "torch", "transformers", "accelerate", "pytest", "diffusers"} == set(declared)
    assert "optional=1" in declared["pytest"].detail
    assert "optional=1" not in declared["torch"].detail
    # The README body after the headers says nothing (its "Requires-Dist: flash-attn" is prose here).
    assert "flash-attn" not in declared


def test_extras_are_flavours_when_every_requirement_is_an_extras() -> None:
    # Twin: ipex-llm declares nothing outside its extras; bigdl-core-xe is the install, not an option.
    signals = list(scan_build("ipex_llm-2.2.0.dist-info/METADATA", IPEX_METADATA, "metadata"))
    assert signals
    assert all("optional=1" not in s.detail for s in signals)


def test_other_names_are_not_core_metadata() -> None:
    assert classify("metadata.json") is None
    assert classify("metadata") is None  # the specification's names are upper case


def test_core_metadata_reader_on_hostile_input() -> None:
    huge = "Requires-Dist: " + "a" * 100_000 + "\n"
    secret = "Requires-Dist: pkg @ https://user:ghp_abcdefghijklmnopqrstuvwxyz0123456789@example.com/p.whl\n"
    markup = "Requires-Dist: <script>alert(1)</script>\nRequires-Dist: flash-attn ; extra == '\\x1b[31m'\n"
    start = time.perf_counter()
    signals = list(scan_build("PKG-INFO", huge + secret + markup, "metadata"))
    assert time.perf_counter() - start < 1.0
    assert all(len(s.subject) < 200 for s in signals)
    assert all("ghp_abcdefghijklmnopqrstuvwxyz" not in s.code for s in signals)
    assert "<script>" not in {s.subject for s in signals}


# ---------------------------------------------------------------------------- lazy, undeclared imports


def test_tensorrt_imported_in_a_function_and_installed_by_nothing_is_an_opt_in(tmp_path: Path) -> None:
    files = {"pkg/engine.py": TRT_LOGGER, "pkg-1.0.dist-info/METADATA": ULTRALYTICS_METADATA}
    for target in ("rocm:gfx942", "xpu", "mps"):
        result = audit_files(tmp_path, files, target)
        trt = [f for f in result.findings if f.rule == "cuda-only-import"]
        assert trt, target
        assert all(f.risk == "lower" for f in trt), target
        assert "the project's requirements do not name it" in trt[0].meaning
        assert result.verdict.risk == "lower", target


def test_tensorrt_the_project_declares_stays_higher(tmp_path: Path) -> None:
    # Twin: a project that installs TensorRT itself may run on it: its lazy import still counts.
    declared = ULTRALYTICS_METADATA + "Requires-Dist: tensorrt>=10\n"
    files = {"pkg/engine.py": TRT_LOGGER, "pkg-1.0.dist-info/METADATA": declared}
    result = audit_files(tmp_path, files, "xpu")
    assert result.verdict.risk == "higher"


def test_tensorrt_with_no_requirements_known_stays_higher(tmp_path: Path) -> None:
    # Twin: a tree that declares nothing says nothing either way.
    result = audit_files(tmp_path, {"pkg/engine.py": TRT_LOGGER}, "xpu")
    assert result.verdict.risk == "higher"


def test_the_device_code_around_an_opt_in_engine_is_that_opt_in(tmp_path: Path) -> None:
    files = {"pkg/backends/tensorrt.py": TRT_BACKEND, "pkg-1.0.dist-info/METADATA": ULTRALYTICS_METADATA}
    for target in ("xpu", "mps"):
        result = audit_files(tmp_path, files, target)
        assert raised(result) == set(), target
        calls = [f for f in result.findings if f.rule == "torch-cuda-api"]
        assert calls
        assert all("an opt-in the project does not install" in f.meaning for f in calls)


def test_the_same_device_code_without_the_import_stays(tmp_path: Path) -> None:
    # Twin: the same calls in a function that imports nothing opt-in run on every engine.
    plain = TRT_BACKEND.replace(
        "        try:\n            import tensorrt as trt\n", "        try:\n            pass\n"
    )
    plain = plain.replace(
        "            check_tensorrt()\n            import tensorrt as trt\n", "            pass\n"
    )
    files = {"pkg/backends/tensorrt.py": plain, "pkg-1.0.dist-info/METADATA": ULTRALYTICS_METADATA}
    result = audit_files(tmp_path, files, "xpu")
    assert "torch-cuda-api" in raised(result)


# ---------------------------------------------------------------------------- flags, dtype pairs


def test_a_flag_bound_to_a_backend_test_guards_like_the_test(tmp_path: Path) -> None:
    for target in ("xpu", "mps"):
        result = audit_files(tmp_path, {"pkg/torch_utils.py": ZERO_FIRST}, target)
        assert raised(result) == set(), target


def test_an_unflagged_barrier_on_the_cuda_device_stays(tmp_path: Path) -> None:
    # Twin: a flag that tests nothing about the device (`use_ids = local_rank >= 0`) guards nothing.
    plain = (
        "import torch\nimport torch.distributed as dist\n\n\ndef zero_first(local_rank):\n"
        "    use_ids = local_rank >= 0\n"
        "    dist.barrier(device_ids=[torch.cuda.current_device()]) if use_ids else dist.barrier()\n"
    )
    result = audit_files(tmp_path, {"pkg/torch_utils.py": plain}, "xpu")
    assert "torch-cuda-api" in raised(result)


def test_a_table_of_dtype_pairs_makes_no_float64_tensor(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"pkg/onnx.py": ORT_DTYPES}, "mps")
    assert "float64-on-mps" not in raised(result)


def test_a_lone_float64_pair_is_still_float64(tmp_path: Path) -> None:
    # Twin: one pair is no table of types; a float64 it names may well be made on the device.
    lone = 'import numpy as np\nimport torch\n\nPAIR = {"x": (torch.float64, np.float64)}\n'
    result = audit_files(tmp_path, {"pkg/onnx.py": lone}, "mps")
    assert "float64-on-mps" in raised(result)


# ---------------------------------------------------------------------------- JIT build with a fallback


def test_a_jit_build_whose_failure_is_swallowed_is_a_fast_path(tmp_path: Path) -> None:
    files = {"peft/boft/layer.py": BOFT, "peft/boft/fbd/fbd_cuda_kernel.cu": FBD_KERNEL}
    for target in ("rocm:gfx942", "xpu", "mps"):
        result = audit_files(tmp_path, files, target)
        assert raised(result) == set(), target
        assert result.verdict.risk == "lower", target


def test_a_jit_build_that_may_fail_the_program_stays(tmp_path: Path) -> None:
    # Twin: the same load with no handler: where it does not compile, the program stops.
    bare = BOFT.replace("    try:\n        fbd_cuda = load(", "    if True:\n        fbd_cuda = load(")
    handler = BOFT[BOFT.index("    except Exception as e:") : BOFT.index("    _FBD_CUDA = fbd_cuda")]
    bare = bare.replace(handler, "")
    files = {"peft/boft/layer.py": bare, "peft/boft/fbd/fbd_cuda_kernel.cu": FBD_KERNEL}
    assert audit_files(tmp_path, files, "xpu").verdict.risk == "higher"


# ---------------------------------------------------------------------------- feature modules


def test_a_module_imported_only_lazily_loads_its_imports_lazily(tmp_path: Path) -> None:
    files = {
        "peft/tuners/lora/bnb.py": LORA_BNB,
        "peft/tuners/lora/__init__.py": LORA_INIT,
        "peft/tuners/lora/model.py": LORA_MODEL,
        "peft-0.21.2.dist-info/METADATA": PEFT_METADATA,
    }
    result = audit_files(tmp_path, files, "mps")
    assert "cuda-only-import" not in raised(result)


def test_a_module_imported_at_the_top_somewhere_stays(tmp_path: Path) -> None:
    # Twin: one importer at module level loads bitsandbytes with the package.
    files = {
        "peft/tuners/lora/bnb.py": LORA_BNB,
        "peft/tuners/lora/__init__.py": LORA_INIT + "\nfrom .bnb import Linear4bit\n",
        "peft/tuners/lora/model.py": LORA_MODEL,
        "peft-0.21.2.dist-info/METADATA": PEFT_METADATA,
    }
    result = audit_files(tmp_path, files, "mps")
    assert "cuda-only-import" in raised(result)


def test_local_imports_resolve_relative_and_own_package_names() -> None:
    text = (
        b"from .bnb import X\nif ok:\n    from ..utils.other import y\n"
        b"from peft.config import C\nfrom torch import nn\n"
    )
    found = [(s.subject, s.guarded) for s in local_imports("peft/tuners/lora/model.py", text)]
    assert found == [
        ("peft/tuners/lora/bnb", False),
        ("peft/tuners/utils/other", True),
        ("peft/config", False),
    ]
    assert [s.line for s in local_imports("peft/tuners/lora/model.py", text)] == [1, 3, 4]


def test_local_imports_on_hostile_input() -> None:
    # Too many dots, a huge name, markup and escapes, and many lines: linear, and nothing made up.
    text = (
        b"from ........ import x\n"
        + b"from ."
        + b"a" * 100_000
        + b" import y\n"
        + b"from .<script> import z\nfrom .\x1b[31m import w\n"
        + b"    from .mod import v\n" * 50_000
    )
    start = time.perf_counter()
    found = list(local_imports("pkg/sub/file.py", text))
    assert time.perf_counter() - start < 2.0
    assert {s.subject for s in found} == {"pkg/sub/mod"}
    assert len(found) == 50_000
