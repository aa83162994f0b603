"""Fixes from blind round 25 (#22), each on an excerpt of the real project that showed it (torchao 0.18.0,
torchtune 0.6.1; PyPI wheels, see tests/data/projects/real-*/SOURCE.md):

- ``try: from torchao.kernel import intmm_triton`` names a submodule in the import's name list: the module
  the project imports only behind that guard was not found, so its ``import triton`` (and that of
  ``kernel/autotuner.py``, which only ``intmm_triton`` imports at its top) read as a module-level import of
  the package, and torchao was HIGHER on MPS. Imported names are candidate submodules now, and a module
  imported at the top only by lazily loaded modules is lazy too.
- ``_SUPPORTS_FLEX_ATTENTION = torch.cuda.is_available() and ...`` in one module, ``if
  _SUPPORTS_FLEX_ATTENTION: ... .to("cuda")`` in another: the imported flag is the device test it binds.
- ``CUDA = ("cuda", "GPU", "nccl")`` beside ``XPU = ("xpu", "XPU", "ccl")``: a row of a device table.
- ``backend = "nccl"`` then ``backend = default_device_backend_map[device_type]``: a default the lookup
  replaces.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

import time
from pathlib import Path

from envsnap.audit.scanners.python_local import local_imports
from tests.audit.conftest import audit_files, raised

# torchao 0.18.0 torchao/kernel/intmm.py (trimmed): the Triton int-mm module is optional.
INTMM = """\
import logging

import torch

logger = logging.getLogger(__name__)

try:
    from torchao.kernel import intmm_triton
except ImportError:
    logger.warning(
        "Warning: Detected no triton, on systems without Triton certain kernels will not work"
    )
    # On cpu-only builds might not be available.
    intmm_triton = None
"""

# torchao 0.18.0 torchao/kernel/intmm_triton.py and autotuner.py (their imports).
INTMM_TRITON = """\
import itertools

import torch
import triton
import triton.language as tl

from torchao.kernel.autotuner import get_best_config_fn
"""
AUTOTUNER = """\
import logging
import os

import torch
import triton

AUTOTUNER_DATA_PATH = os.getenv("TORCHAO_AUTOTUNER_DATA_PATH", None)
"""
KERNEL_INIT = "from torchao.kernel.intmm import int_scaled_matmul, safe_int_mm\n"
# torchao 0.18.0 METADATA (headers, trimmed): no run-time requirement, a `dev` extra; Triton is installed by
# nothing (it comes with a CUDA or XPU torch).
TORCHAO_METADATA = """\
Metadata-Version: 2.4
Name: torchao
Version: 0.18.0
Provides-Extra: dev
Requires-Dist: pytest==9.0.3; extra == "dev"
Requires-Dist: transformers; extra == "dev"

"""

# torchtune 0.6.1 torchtune/utils/_import_guard.py and modules/attention_utils.py (trimmed).
IMPORT_GUARD = """\
import torch

# We can only use flex attention / BlockMask if torch version >= 2.5.0 and GPU is Turing / SM75 and above
_SUPPORTS_FLEX_ATTENTION = (
    torch.cuda.is_available() and torch.cuda.get_device_capability() >= (7, 5)
)
"""
ATTENTION_PATH = "torchtune/modules/attention_utils.py"
ATTENTION_UTILS = """\
import torch

from torchtune.utils._import_guard import _SUPPORTS_FLEX_ATTENTION


def create_block_causal_mask(seq_lens):
    if _SUPPORTS_FLEX_ATTENTION:
        document_ids = _get_document_ids_from_seq_lens(seq_lens)
        batch_size, max_seq_len = document_ids.shape
        document_ids = document_ids.to("cuda")
        return create_block_causal_mask_flex(
            mask_mod,
            batch_size,
            None,
            max_seq_len,
            max_seq_len,
            device="cuda",
        )
    else:
        return create_block_causal_mask(seq_lens=seq_lens)
"""

# torchtune 0.6.1 torchtune/utils/_device.py (trimmed): the DeviceSupport enum.
DEVICE_SUPPORT = """\
from enum import Enum


class DeviceSupport(Enum):
    CPU = ("cpu", "CPU", "gloo")
    CUDA = ("cuda", "GPU", "nccl")
    NPU = ("npu", "NPU", "hccl")
    XPU = ("xpu", "XPU", "ccl")

    def __init__(self, device_type: str, device_name: str, communication_backend: str):
        self.device_type = device_type
        self.device_name = device_name
        self.communication_backend = communication_backend
"""

# torchtune 0.6.1 torchtune/training/_distributed.py (trimmed).
DISTRIBUTED_BACKEND = """\
import torch.distributed as dist


def get_distributed_backend(device_type: str, offload_ops_to_cpu: bool = False) -> str:
    default_device_backend_map = dist.Backend.default_device_backend_map
    backend = "nccl"
    if device_type in default_device_backend_map:
        backend = default_device_backend_map[device_type]
    if offload_ops_to_cpu:
        backend = f"{device_type}:{backend},cpu:gloo"
    return backend


def init(device_type):
    dist.init_process_group(backend=get_distributed_backend(device_type))
"""


# ---------------------------------------------------------------------------- optional submodules


def _torchao(intmm: str) -> dict[str, str]:
    return {
        "torchao/kernel/__init__.py": KERNEL_INIT,
        "torchao/kernel/intmm.py": intmm,
        "torchao/kernel/intmm_triton.py": INTMM_TRITON,
        "torchao/kernel/autotuner.py": AUTOTUNER,
        "torchao-0.18.0.dist-info/METADATA": TORCHAO_METADATA,
    }


def test_a_submodule_imported_only_in_a_guard_loads_triton_lazily(tmp_path: Path) -> None:
    result = audit_files(tmp_path, _torchao(INTMM), "mps")
    assert "cuda-only-import" not in raised(result)


def test_a_submodule_imported_at_the_top_still_loads_triton(tmp_path: Path) -> None:
    # Twin: the same import unguarded, at module level: the package cannot load without Triton.
    eager = "import torch\n\nfrom torchao.kernel import intmm_triton\n"
    result = audit_files(tmp_path, _torchao(eager), "mps")
    assert "cuda-only-import" in raised(result)


def test_local_imports_name_submodules_only_when_asked() -> None:
    text = (
        b"try:\n    from torchao.kernel import intmm_triton\nexcept ImportError:\n    pass\n"
        b"from . import a, b as c\n"
    )
    plain = [s.subject for s in local_imports("torchao/kernel/intmm.py", text)]
    assert plain == ["torchao/kernel"]  # as before: only the module imported from
    found = [(s.subject, s.guarded) for s in local_imports("torchao/kernel/intmm.py", text, submodules=True)]
    assert found == [
        ("torchao/kernel", True),
        ("torchao/kernel/intmm_triton", True),
        ("torchao/kernel/a", False),
        ("torchao/kernel/b", False),
    ]


def test_local_import_names_on_hostile_input() -> None:
    # A huge name list, markup, escapes, a star and many lines: linear, and nothing made up.
    text = (
        b"from .m import " + b"x, " * 100_000 + b"y\n"
        b"from .n import <script>, \x1b[31m, *\n" + b"    from .mod import (v,\n" * 50_000
    )
    start = time.perf_counter()
    found = list(local_imports("pkg/sub/file.py", text, submodules=True))
    assert time.perf_counter() - start < 2.0
    subjects = {s.subject for s in found}
    assert subjects == {"pkg/sub/m", "pkg/sub/m/x", "pkg/sub/n", "pkg/sub/mod", "pkg/sub/mod/v"}


# ---------------------------------------------------------------------------- imported device flags


def test_an_imported_flag_bound_to_a_cuda_test_guards_like_the_test(tmp_path: Path) -> None:
    files = {"torchtune/utils/_import_guard.py": IMPORT_GUARD, ATTENTION_PATH: ATTENTION_UTILS}
    for target in ("xpu", "mps"):
        result = audit_files(tmp_path, files, target)
        assert "hardcoded-cuda-device" not in raised(result), target


def test_an_imported_plain_option_guards_nothing(tmp_path: Path) -> None:
    # Twin: the same name bound to an option that tests nothing about the device.
    option = "import os\n\n_SUPPORTS_FLEX_ATTENTION = os.getenv('FLEX', '1') == '1'\n"
    files = {"torchtune/utils/_import_guard.py": option, ATTENTION_PATH: ATTENTION_UTILS}
    result = audit_files(tmp_path, files, "xpu")
    assert "hardcoded-cuda-device" in raised(result)


# ---------------------------------------------------------------------------- backend tables and defaults


def test_a_device_table_row_pairs_nccl_with_cuda(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"torchtune/utils/_device.py": DEVICE_SUPPORT}, "xpu")
    assert "nccl-backend" not in raised(result)


def test_a_backend_pair_with_no_device_stays(tmp_path: Path) -> None:
    # Twin: a tuple naming backends only is no device row; passed to init_process_group it is the choice.
    pair = (
        "import torch.distributed as dist\n\n"
        'BACKENDS = ("nccl", "gloo")\ndist.init_process_group(backend="nccl")\n'
    )
    result = audit_files(tmp_path, {"pkg/dist.py": pair}, "xpu")
    assert "nccl-backend" in raised(result)


def test_a_nccl_default_replaced_by_a_lookup_is_a_default(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"torchtune/training/_distributed.py": DISTRIBUTED_BACKEND}, "xpu")
    assert "nccl-backend" not in raised(result)


def test_a_nccl_choice_never_replaced_stays(tmp_path: Path) -> None:
    # Twin: the same function without the lookup: NCCL is what init_process_group gets.
    lookup = (
        "    if device_type in default_device_backend_map:\n"
        "        backend = default_device_backend_map[device_type]\n"
    )
    fixed = DISTRIBUTED_BACKEND.replace(lookup, "")
    assert fixed != DISTRIBUTED_BACKEND
    result = audit_files(tmp_path, {"torchtune/training/_distributed.py": fixed}, "xpu")
    assert "nccl-backend" in raised(result)
