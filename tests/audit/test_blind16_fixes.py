"""Fixes from blind round 16 (#22), each on an excerpt of the real project that showed it:

- a project that picks ONNX Runtime's execution provider per accelerator (CUDA, CoreML, DirectML...) and never
  names the target's provider gives the target the CPU provider, a closed set like a device selection that
  names 'cuda' and 'mps' (audio-separator 0.47.1 separator/separator.py: on ROCm its PyTorch models run on
  the GPU and its ONNX models on the CPU);
- a hard-coded 'cuda' buffer in a function that calls a torch.distributed collective is for multi-process
  runs only: the collective raises without a process group, on CUDA too (audio-separator 0.47.1's vendored
  demucs uvr_lib_v5/demucs/utils.py ``average_metric``).
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.conftest import audit_files, raised

# audio-separator 0.47.1 audio_separator/separator/separator.py (Separator.setup_torch_device and the
# configure_* methods, trimmed).
SELECTION = """\
import torch
import onnxruntime as ort


class Separator:
    def setup_torch_device(self, system_info):
        ort_providers = ort.get_available_providers()
        self.torch_device_cpu = torch.device("cpu")
        if torch.cuda.is_available():
            self.configure_cuda(ort_providers)
        elif torch.backends.mps.is_available() and system_info.processor == "arm":
            self.configure_mps(ort_providers)
        else:
            self.torch_device = self.torch_device_cpu
            self.onnx_execution_provider = ["CPUExecutionProvider"]

    def configure_cuda(self, ort_providers):
        self.torch_device = torch.device("cuda")
        if "CUDAExecutionProvider" in ort_providers:
            self.onnx_execution_provider = ["CUDAExecutionProvider"]
        else:
            self.logger.warning("CUDAExecutionProvider not available in ONNXruntime")

    def configure_mps(self, ort_providers):
        self.torch_device_mps = torch.device("mps")
        self.torch_device = self.torch_device_mps
        if "CoreMLExecutionProvider" in ort_providers:
            self.onnx_execution_provider = ["CoreMLExecutionProvider"]
"""
# The DirectML branch, here in a module of its own with no other trigger word.
DIRECTML = """\
import torch_directml


def configure_dml(separator, ort_providers):
    separator.torch_device = torch_directml.device()
    if "DmlExecutionProvider" in ort_providers:
        separator.onnx_execution_provider = ["DmlExecutionProvider"]
"""
# The same selection with CUDA as its only accelerator: CUDA's provider where it exists, else the CPU.
CUDA_OR_CPU = SELECTION.replace(
    '        elif torch.backends.mps.is_available() and system_info.processor == "arm":\n'
    "            self.configure_mps(ort_providers)\n",
    "",
).split("    def configure_mps")[0]
MIGRAPHX = """\
def configure_rocm(separator, ort_providers):
    if "MIGraphXExecutionProvider" in ort_providers:
        separator.onnx_execution_provider = ["MIGraphXExecutionProvider"]
"""


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu"])
def test_a_provider_chosen_per_accelerator_is_a_closed_set(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"sep/separator.py": SELECTION, "sep/dml.py": DIRECTML}, target)
    ort = [f for f in result.findings if f.rule == "ort-cuda-provider"]
    assert ort
    assert {f.risk for f in ort} == {"moderate"}
    assert "among CUDA, CoreML, DirectML and the CPU" in ort[0].meaning
    assert result.verdict.risk == "moderate"
    # DirectML alone is enough to make it a choice among accelerators (its module has no other trigger).
    dml = audit_files(tmp_path / "dml", {"sep/separator.py": CUDA_OR_CPU, "sep/dml.py": DIRECTML}, target)
    assert "ort-cuda-provider" in raised(dml)
    # Twins: CUDA's provider or the CPU is a default, as "cuda" if available else "cpu" is ...
    alone = audit_files(tmp_path / "alone", {"sep/separator.py": CUDA_OR_CPU}, target)
    assert "ort-cuda-provider" not in raised(alone)
    assert [f.risk for f in alone.findings if f.rule == "ort-cuda-provider"] == ["lower", "lower"]
    # ... and on Apple GPUs the choice names the target's provider (CoreML): a path there.
    mps = audit_files(tmp_path / "mps", {"sep/separator.py": SELECTION, "sep/dml.py": DIRECTML}, "mps")
    assert "ort-cuda-provider" not in raised(mps)
    assert mps.verdict.risk == "lower"


def test_a_choice_that_names_the_targets_provider_is_a_path_there(tmp_path: Path) -> None:
    files = {"sep/separator.py": SELECTION, "sep/dml.py": DIRECTML, "sep/rocm.py": MIGRAPHX}
    result = audit_files(tmp_path, files, "rocm:gfx942")
    assert result.verdict.supported
    assert "ort-cuda-provider" not in raised(result)
    assert result.verdict.risk == "lower"
    # Without it, the same tree is the closed set above.
    files.pop("sep/rocm.py")
    assert audit_files(tmp_path / "without", files, "rocm:gfx942").verdict.risk == "moderate"


# audio-separator 0.47.1 audio_separator/separator/uvr_lib_v5/demucs/utils.py (demucs' training helper).
AVERAGE_METRIC = '''\
import torch as th
from torch import distributed


def average_metric(metric, count=1.0):
    """
    Average `metric` which should be a float across all hosts. `count` should be
    the weight for this particular host (i.e. number of examples).
    """
    metric = th.tensor([count, count * metric], dtype=th.float32, device="cuda")
    distributed.all_reduce(metric, op=distributed.ReduceOp.SUM)
    return metric[1].item() / metric[0].item()
'''


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_cuda_buffer_of_a_collective_is_for_multi_process_runs(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"demucs/utils.py": AVERAGE_METRIC}, target)
    hard = [f for f in result.findings if f.rule == "hardcoded-cuda-device"]
    assert [f.risk for f in hard] == ["lower"]
    assert "torch.distributed collective" in hard[0].meaning
    assert result.verdict.risk == "lower"
    # Twins: a collective only under a condition (the function also runs single-process), a reduce that
    # is not torch.distributed's, and no collective at all leave the hard-coded device a failure.
    for name, text in (
        (
            "conditional",
            AVERAGE_METRIC.replace(
                "    distributed.all_reduce(",
                "    if distributed.is_initialized():\n        distributed.all_reduce(",
            ),
        ),
        (
            "functools",
            AVERAGE_METRIC.replace("from torch import distributed", "import functools as distributed"),
        ),
        (
            "none",
            AVERAGE_METRIC.replace("    distributed.all_reduce(metric, op=distributed.ReduceOp.SUM)\n", ""),
        ),
    ):
        twin = audit_files(tmp_path / name, {"demucs/utils.py": text}, target)
        assert "hardcoded-cuda-device" in raised(twin), name
        assert twin.verdict.risk == "moderate", name


def test_a_function_that_can_return_before_its_collective_stays_a_single_run_path(tmp_path: Path) -> None:
    # demucs' distrib.average (the blind round 8 excerpt) returns early for a dict: not every call reaches
    # the all-reduce, so its 'cuda' buffer is not set aside as multi-process only by this rule.
    early = AVERAGE_METRIC.replace(
        '    """\n    metric = th.tensor(',
        '    """\n    if isinstance(metric, dict):\n        return metric\n    metric = th.tensor(',
    )
    assert "return metric\n" in early
    result = audit_files(tmp_path, {"demucs/utils.py": early}, "mps")
    assert "hardcoded-cuda-device" in raised(result)
    assert result.verdict.risk == "moderate"
