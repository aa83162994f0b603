"""Fixes from blind round 19 (#22), each on an excerpt of the real project that showed it:

- a class whose ``__init__`` wraps its module in ``nn.DataParallel`` is an opt-in multi-GPU wrapper
  (tianshou 2.0.1's DataParallelNet): its ``.cuda()`` is not on a single-device run's path;
- a table translating another runtime's type names into torch dtypes (optimum-intel 2.2.0's OV_TO_PT_TYPE)
  makes no float64 tensor on MPS.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.conftest import audit_files, raised


# tianshou 2.0.1 tianshou/utils/net/common.py (trimmed): the DataParallel wrapper.
def _wrapper(init_body: str) -> str:
    return f"""\
from typing import Any

import torch
from torch import nn


class DataParallelNet(nn.Module):
    def __init__(self, net: nn.Module, many: bool = False) -> None:
        super().__init__()
{init_body}

    def forward(self, obs: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        if not isinstance(obs, torch.Tensor):
            obs = torch.as_tensor(obs, dtype=torch.float32)
        obs = obs.cuda()
        return self.net(obs, *args, **kwargs)
"""


WRAPPED = "        self.net = nn.DataParallel(net)"
WRAPPED_TORCH = "        self.net = torch.nn.DataParallel(net)"
# Twin: a class that wraps only under a condition runs its `.cuda()` on the single-device path too.
CONDITIONAL = """\
        self.net = net
        if many:
            self.net = nn.DataParallel(net)"""
# Twin: DistributedDataParallel is not the DataParallel wrapper (its name ends with the same word).
DISTRIBUTED = "        self.net = nn.parallel.DistributedDataParallel(net)"


@pytest.mark.parametrize("target", ["xpu", "mps"])
@pytest.mark.parametrize("init_body", [WRAPPED, WRAPPED_TORCH], ids=["nn", "torch.nn"])
def test_cuda_in_a_data_parallel_wrapper_is_the_opt_in_multi_gpu_path(
    tmp_path: Path, target: str, init_body: str
) -> None:
    result = audit_files(tmp_path, {"pkg/net.py": _wrapper(init_body)}, target)
    assert result.verdict.risk == "lower"
    found = [f for f in result.findings if f.rule == "hardcoded-cuda-device"]
    assert found
    assert all("DataParallel" in f.meaning and f.risk == "lower" for f in found)


@pytest.mark.parametrize("init_body", [CONDITIONAL, DISTRIBUTED], ids=["conditional", "distributed"])
def test_cuda_beside_a_conditional_or_distributed_wrap_stays_a_hard_code(
    tmp_path: Path, init_body: str
) -> None:
    result = audit_files(tmp_path, {"pkg/net.py": _wrapper(init_body)}, "xpu")
    assert "hardcoded-cuda-device" in raised(result)
    assert result.verdict.risk == "moderate"


# optimum-intel 2.2.0 optimum/intel/openvino/utils.py (trimmed) and its lookup in modeling_base.py.
def _table(values: str) -> str:
    return f"""\
import torch

OV_TO_PT_TYPE = {{
{values}
}}


def output_dtype(dtype):
    return OV_TO_PT_TYPE.get(dtype)
"""


TABLE = """\
    "boolean": torch.bool,
    "i64": torch.int64,
    "f16": torch.float16,
    "f32": torch.float32,
    "f64": torch.float64,"""
# Twin: a dict holding float64 beside one other dtype is a setting, not a translation table.
PAIR = """\
    "precision": torch.float64,
    "index": torch.int64,"""

# Twin: a table sending every dtype to float64 is an upcast (torch._prims_common's reference dtypes).
UPCAST = """\
    "f16": torch.float64,
    "bf16": torch.float64,
    "f32": torch.float64,"""


def test_a_dtype_translation_table_makes_no_float64_tensor_on_mps(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"pkg/utils.py": _table(TABLE)}, "mps")
    assert "float64-on-mps" not in raised(result)
    assert result.verdict.risk == "lower"


@pytest.mark.parametrize("values", [PAIR, UPCAST], ids=["two-entries", "upcast"])
def test_float64_in_a_setting_or_an_upcast_table_still_counts_on_mps(tmp_path: Path, values: str) -> None:
    result = audit_files(tmp_path, {"pkg/utils.py": _table(values)}, "mps")
    assert "float64-on-mps" in raised(result)
    assert result.verdict.risk == "moderate"
