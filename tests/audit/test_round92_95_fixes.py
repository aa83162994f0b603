"""Fixes after measurement rounds 92-95 (#22): what the rounds showed envsnap claiming that is not so.

- ``torch.cuda.is_bf16_supported()`` and ``torch.cuda.memory_allocated()`` answer False and 0 on a build
  without CUDA; they were reported as raising (Depth Anything 3, round 94).
- A project that requires a CUDA-only package and guards its import still installs it: on XPU and MPS,
  where no build exists, the requirement is the cost (Depth Anything 3's ``Requires-Dist: xformers``).
- ``torch.tensor(..., dtype=torch.float64, device="cuda")`` lives on CUDA, never on MPS (POT, round 93).
- ``def cuda(self): return self.to("cuda")`` mirrors ``Tensor.cuda()``: the caller's choice (Norse, round 92).
- CuPy kernels of a torch project that never installs CuPy are an opt-in backend (SpikingJelly, round 92).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch

from envsnap.audit.judges.device import READS_EMPTY
from envsnap.render.audit import audit_markdown, render_audit
from envsnap.render.audit_json import audit_json
from envsnap.render.console import print_out
from tests.audit.conftest import audit_files


def _risks(tmp_path: Path, files: dict[str, str], target: str, rule: str) -> list[str]:
    return [f.risk for f in audit_files(tmp_path, files, target).findings if f.rule == rule]


def test_every_call_said_to_read_empty_does_so_on_this_torch() -> None:
    """The list is measured, not recalled: each call returns a falsy value on a torch without CUDA."""
    if torch.cuda.is_available():
        return  # a CUDA machine answers for real; the claim is about builds and hosts without CUDA
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # memory_cached: renamed, still answering
        for member in sorted(READS_EMPTY):
            assert not getattr(torch.cuda, member)(), member


# Depth Anything 3 0.1.1 depth_anything_3/api.py (trimmed).
BF16 = """\
import torch


def autocast_dtype():
    return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16


def report():
    return torch.cuda.memory_allocated() / 2**30


def sync():
    torch.cuda.synchronize()
"""


def test_a_call_that_reads_false_off_cuda_is_no_error(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"depth_anything_3/api.py": BF16}, "xpu")
    found = {f.code.split("(")[0].split()[-1]: f for f in report.findings if f.rule == "torch-cuda-api"}
    assert found["torch.cuda.is_bf16_supported"].risk == "lower"
    assert "answers False, 0 or nothing" in found["torch.cuda.is_bf16_supported"].meaning
    assert found["torch.cuda.memory_allocated"].risk == "lower"
    # Twin: synchronize raises without CUDA ("Torch not compiled with CUDA enabled").
    sync = next(f for f in report.findings if "synchronize" in f.code)
    assert sync.risk == "moderate"


METADATA = """\
Metadata-Version: 2.4
Name: depth-anything-3
Version: 0.1.1
Requires-Dist: torch
Requires-Dist: xformers
"""
SWIGLU = """\
try:
    from xformers.ops import SwiGLU

    XFORMERS_AVAILABLE = True
except ImportError:
    SwiGLU = None
    XFORMERS_AVAILABLE = False
"""


def test_a_required_package_with_no_target_build_costs_its_install(tmp_path: Path) -> None:
    files = {"METADATA": METADATA, "depth_anything_3/layers/swiglu_ffn.py": SWIGLU}
    for target in ("xpu", "mps"):
        found = audit_files(tmp_path / target, files, target)
        requirement = next(f for f in found.findings if f.rule == "cuda-only-requirement")
        assert requirement.risk == "moderate", target
        assert "the project requires it" in requirement.meaning
        assert found.verdict.risk == "moderate"
    # ROCm has xformers wheels: the guarded import keeps it lower.
    rocm = audit_files(tmp_path / "rocm", files, "rocm:gfx942")
    assert rocm.verdict.risk == "lower"
    # Twin: as an extra the default install does not pull it.
    extra = METADATA.replace("Requires-Dist: xformers", 'Requires-Dist: xformers ; extra == "fast"')
    optional = audit_files(tmp_path / "extra", {**files, "METADATA": extra}, "xpu")
    assert optional.verdict.risk == "lower"


# POT 0.9.7 ot/backend.py (TorchBackend.__init__, trimmed).
POT = """\
import torch


class TorchBackend:
    def __init__(self):
        self.__type_list__ = [torch.tensor(1, dtype=torch.float32), torch.tensor(1, dtype=torch.float64)]
        if torch.cuda.is_available():
            self.__type_list__.append(torch.tensor(1, dtype=torch.float64, device="cuda"))
"""


def test_float64_on_a_cuda_literal_device_is_not_on_mps(tmp_path: Path) -> None:
    assert _risks(tmp_path / "a", {"ot/backend.py": POT}, "mps", "float64-on-mps") == []
    # Twin: the same tensor on the caller's device does reach MPS.
    moved = POT.replace('device="cuda"', "device=self.device")
    assert _risks(tmp_path / "b", {"ot/backend.py": moved}, "mps", "float64-on-mps") == ["moderate"]


# Norse 1.1.0 norse/torch/utils/pytree.py (StateTuple, trimmed).
NORSE = """\
import torch


class StateTuple:
    def __init__(self, *values):
        self.values = values

    def to(self, device):
        return StateTuple(*(v.to(device) for v in self.values))

    def cuda(self):
        return self.to("cuda")

    def half(self):
        return self.to("cuda")
"""


def test_a_cuda_method_mirrors_tensor_cuda(tmp_path: Path) -> None:
    found = audit_files(tmp_path, {"norse/torch/utils/pytree.py": NORSE}, "mps").findings
    lines = [f.location for f in found if f.rule == "hardcoded-cuda-device"]
    # Only `half` (line 15) makes its own choice; `cuda` (line 12) forwards the caller's.
    assert lines == ["norse/torch/utils/pytree.py:15"]


SPIKING_METADATA = """\
Metadata-Version: 2.1
Name: spikingjelly
Version: 0.0.0.0.14
Requires-Dist: torch
Requires-Dist: numpy
"""
# SpikingJelly 0.0.0.0.14 activation_based/auto_cuda/base.py (trimmed).
SPIKING_KERNEL = """\
import logging
try:
    import cupy
except BaseException as e:
    logging.info(e)
    cupy = None

CODE = r'''
extern "C" __global__ void neuronal_charge(const float* x, float* v, const int N)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) { v[i] += x[i]; }
}
'''


def charge(x, v):
    kernel = cupy.RawKernel(CODE, "neuronal_charge")
    kernel((1,), (x.numel(),), (x, v, x.numel()))
"""


def test_cupy_kernels_of_a_torch_project_that_never_installs_cupy_are_opt_in(tmp_path: Path) -> None:
    files = {"METADATA": SPIKING_METADATA, "spikingjelly/auto_cuda/base.py": SPIKING_KERNEL}
    for target in ("xpu", "mps"):
        report = audit_files(tmp_path / target, files, target)
        kernels = [f for f in report.findings if f.rule in ("cupy-kernel", "cuda-kernel-string")]
        assert {f.risk for f in kernels} == {"lower"}, target
        assert all("opt-in" in f.meaning for f in kernels)
        assert report.verdict.risk == "lower"
    # Twin: without torch the kernels are the only GPU path (thinc's shape): missing, so moderate.
    numpy_only = SPIKING_METADATA.replace("Requires-Dist: torch\n", "")
    alone = audit_files(tmp_path / "numpy", {**files, "METADATA": numpy_only}, "xpu")
    assert alone.verdict.risk == "moderate"
    # Twin: a project that requires CuPy runs these kernels: a rewrite.
    required = SPIKING_METADATA + "Requires-Dist: cupy-cuda12x\n"
    needed = audit_files(tmp_path / "required", {**files, "METADATA": required}, "xpu")
    assert needed.verdict.risk == "higher"


# CompressAI 1.2.8's sdist (#22 blind round 99): PKG-INFO says what pip installs; requirements.txt is a 2021
# `pip freeze` of a docs/notebook setup that no build file reads.
PKG_INFO = """\
Metadata-Version: 2.1
Name: compressai
Version: 1.2.8
Requires-Dist: numpy
Requires-Dist: torch>=1.13.1
Requires-Dist: torch<2.0; extra == "legacy"

# CompressAI
Install an old stack with `pip install torch==1.8.1` if you must.
"""
FREEZE = "alabaster==0.7.12\njupyter==1.0.0\ntorch==1.8.1\n"


def test_the_metadata_says_what_installs_not_a_frozen_requirements_file(tmp_path: Path) -> None:
    files = {"PKG-INFO": PKG_INFO, "requirements.txt": FREEZE, "compressai/__init__.py": "import torch\n"}
    for target in ("rocm:gfx942", "xpu"):
        report = audit_files(tmp_path / target, files, target)
        assert [f for f in report.findings if f.rule == "torch-pin"] == [], target
        assert report.verdict.risk == "lower"
    # Twin: the metadata's own cap (a default requirement, in the headers) is read and judged.
    capped = PKG_INFO.replace("Requires-Dist: torch>=1.13.1", "Requires-Dist: torch==2.0.1")
    report = audit_files(tmp_path / "capped", {**files, "PKG-INFO": capped}, "xpu")
    pins = [f for f in report.findings if f.rule == "torch-pin"]
    assert [f.location for f in pins] == ["PKG-INFO:5"]
    assert pins[0].risk == "moderate"
    # Twin: with no metadata the requirements file is what the project installs with.
    alone = audit_files(tmp_path / "alone", {"requirements.txt": FREEZE}, "xpu")
    assert [f.location for f in alone.findings if f.rule == "torch-pin"] == ["requirements.txt:3"]


def test_a_hostile_metadata_pin_is_shown_escaped_and_redacted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z0"
    hostile = (
        "Metadata-Version: 2.1\nName: x\n"
        f"Requires-Dist: torch==1.8.1 \x1b[2J[red]x[/red] --index-url https://u:{token}@example.com/simple"
        + "x" * 5000
        + "\n"
    )
    report = audit_files(tmp_path, {"METADATA": hostile}, "xpu")
    pins = [f for f in report.findings if f.rule == "torch-pin"]
    assert pins
    assert all(token not in f.code and len(f.code) <= 200 for f in pins)  # redacted in the model (and cache)
    print_out(render_audit(report))
    text = capsys.readouterr().out
    assert "\x1b" not in text
    assert token not in text
    assert "[red]x[/red]" in text
    for rendered in (audit_markdown(report), audit_json(report)):
        assert "\x1b" not in rendered
        assert token not in rendered
