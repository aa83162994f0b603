"""Fixes from blind round 29 (#22), each on an excerpt of the real project that showed it (lightning 2.6.6
wheel; PyPI, see tests/data/projects/real-lightning/SOURCE.md):

- Lightning's mixed-precision plugin builds ``torch.amp.GradScaler(device=device) if _TORCH_GREATER_EQUAL_2_4
  else torch.cuda.amp.GradScaler()``: the CUDA scaler is an older torch's branch, but the constant-style
  version flag was not read as a torch version test (MODERATE on MPS).
- Its bitsandbytes plugin imports bitsandbytes inside ``_import_bitsandbytes`` (an extras-only requirement)
  and the 8-bit layer it defines there defaults to ``torch.device("cuda")``: that code runs only for users of
  the extra, as in a function importing a package the project never declares.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

import time
from pathlib import Path

from envsnap.audit.scanners.python_shapes import switch_word
from tests.audit.conftest import audit_files, raised

# ---------------------------------------------------------------------------- a constant torch version flag

# lightning 2.6.6 lightning/fabric/plugins/precision/amp.py (imports and MixedPrecision.__init__, trimmed);
# the scaler line is one line there, too long for this file's limit.
SCALER = (
    "scaler = torch.amp.GradScaler(device=device) if _TORCH_GREATER_EQUAL_2_4 "
    "else torch.cuda.amp.GradScaler()"
)
AMP = f"""\
from typing import Literal, Optional

import torch

from lightning.fabric.utilities.imports import _TORCH_GREATER_EQUAL_2_4


class MixedPrecision:
    def __init__(
        self,
        precision: Literal["16-mixed", "bf16-mixed"],
        device: str,
        scaler: Optional["torch.amp.GradScaler"] = None,
    ) -> None:
        self.precision = precision
        if scaler is None and self.precision == "16-mixed":
            {SCALER}
        self.device = device
        self.scaler = scaler
"""


def test_a_constant_torch_version_flag_picks_the_generic_scaler(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"lightning/fabric/plugins/precision/amp.py": AMP}, "mps")
    assert "cuda-grad-scaler" not in raised(result)


def test_a_flag_of_another_package_keeps_the_cuda_scaler(tmp_path: Path) -> None:
    # Twin: a torchvision version says nothing about torch.amp: the CUDA scaler may run on the target.
    code = AMP.replace("_TORCH_GREATER_EQUAL_2_4", "_TORCHVISION_GREATER_EQUAL_0_15")
    result = audit_files(tmp_path, {"lightning/fabric/plugins/precision/amp.py": code}, "mps")
    assert "cuda-grad-scaler" in raised(result)


def test_a_torch_version_flag_on_hostile_input() -> None:
    import ast

    start = time.perf_counter()
    assert switch_word(ast.Name(id="_TORCH_GREATER_EQUAL_2_4"))
    assert not switch_word(ast.Name(id="_TORCH_GREATER_EQUAL_" + "x" * 100_000))
    assert not switch_word(ast.Name(id="<b>_TORCH_GREATER_EQUAL_2_4</b>"))
    assert time.perf_counter() - start < 0.5


# ---------------------------------------------------------------------------- a package only extras install

# lightning 2.6.6 METADATA (requirements, trimmed; markers dropped): bitsandbytes is in an extra only.
METADATA = """\
Metadata-Version: 2.4
Name: lightning
Version: 2.6.6
Requires-Dist: torch<4.0,>=2.1.0
Requires-Dist: lightning-utilities<2.0,>=0.10.0
Provides-Extra: pytorch-extra
Requires-Dist: bitsandbytes<1.0,>=0.45.2; extra == "pytorch-extra"
"""
# lightning 2.6.6 lightning/fabric/plugins/precision/bitsandbytes.py (_import_bitsandbytes, trimmed).
BNB = """\
import functools
import os
from types import ModuleType
from typing import Any, Optional

import torch
from lightning_utilities.core.imports import RequirementCache

_BITSANDBYTES_AVAILABLE = RequirementCache("bitsandbytes")


@functools.lru_cache(maxsize=1)
def _import_bitsandbytes() -> ModuleType:
    if not _BITSANDBYTES_AVAILABLE:
        raise ModuleNotFoundError(str(_BITSANDBYTES_AVAILABLE))
    import bitsandbytes as bnb

    class _Linear8bitLt(bnb.nn.Linear8bitLt):
        @staticmethod
        def quantize(
            int8params: bnb.nn.Int8Params, weight: torch.Tensor, device: Optional[torch.device]
        ) -> bnb.nn.Int8Params:
            device = device or torch.device("cuda")
            if device.type != "cuda":
                raise RuntimeError(f"Unexpected device type: {device.type}")
            B = weight.contiguous().to(device=device, dtype=torch.float16)
            return B

    return bnb
"""


def _bnb(metadata: str) -> dict[str, str]:
    return {
        "lightning-2.6.6.dist-info/METADATA": metadata,
        "lightning/__init__.py": "",
        "lightning/fabric/__init__.py": "",
        "lightning/fabric/plugins/__init__.py": "",
        "lightning/fabric/plugins/precision/__init__.py": "",
        "lightning/fabric/plugins/precision/bitsandbytes.py": BNB,
    }


def test_code_in_the_function_importing_an_extra_only_package_is_opt_in(tmp_path: Path) -> None:
    result = audit_files(tmp_path, _bnb(METADATA), "mps")
    assert "hardcoded-cuda-device" not in raised(result)
    cuda = [f for f in result.findings if f.rule == "hardcoded-cuda-device"]
    assert cuda
    assert all("does not install by default" in f.meaning for f in cuda)


def test_a_package_the_default_install_brings_keeps_its_code(tmp_path: Path) -> None:
    # Twin: bitsandbytes required by the base install: the function may be the main path.
    metadata = METADATA.replace('; extra == "pytorch-extra"', "")
    result = audit_files(tmp_path, _bnb(metadata), "mps")
    assert "hardcoded-cuda-device" in raised(result)
