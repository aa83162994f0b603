"""Fixes after measurement rounds 96-107 (#22): a kernel module the project loads only as one of two
implementations is not its path; DGL's builds; pins in METADATA; a device ladder with log lines or
placements in its branches is still a closed set of devices.

BigVGAN 2.4.1 (round 96) imports its fused CUDA activation only under ``if h.get("use_cuda_kernel", False):``
and binds the same name to the pure-torch twin in the ``else``; ccvfi 0.0.3 (round 98) picks ``softsplat``
(CuPy kernels) or ``softsplat_torch`` by ``support_cupy``. Both were *higher* for *lower* on XPU.
"""

from __future__ import annotations

from pathlib import Path

from envsnap.audit.scanners.python_twins import twin_import_lines
from tests.audit.conftest import audit_files

# ccvfi 0.0.3 ccvfi/arch/drba_arch.py (DRBA.__init__, trimmed).
DRBA = """\
import torch.nn as nn


class DRBA(nn.Module):
    def __init__(self, support_cupy=False):
        super().__init__()
        if support_cupy:
            from ccvfi.arch.arch_utils.softsplat import softsplat as fwarp

            self.fwarp = fwarp
        else:
            from ccvfi.arch.arch_utils.softsplat_torch import softsplat as fwarp

            self.fwarp = fwarp
"""
# ccvfi 0.0.3 ccvfi/arch/arch_utils/softsplat.py (trimmed): CuPy at the top, CUDA C in strings.
SOFTSPLAT = '''\
import cupy
import torch


def cuda_kernel(name, source):
    return cupy.RawModule(code=source).get_function(name)


SOURCE = """
extern "C" __global__ void __launch_bounds__(512) softsplat_out(const int n, float* out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { out[i] = 0.0f; }
}
"""


def softsplat(tenIn, tenFlow, tenMetric, strMode):
    kernel = cuda_kernel("softsplat_out", SOURCE)
    kernel((1,), (512,), (tenIn.numel(), tenIn.data_ptr()), stream=torch.cuda.current_stream().cuda_stream)
    return tenIn
'''
SOFTSPLAT_TORCH = """\
import torch


def softsplat(tenIn, tenFlow, tenMetric, strMode):
    return tenIn + 0 * tenFlow.sum()
"""
CCVFI_METADATA = """\
Metadata-Version: 2.1
Name: ccvfi
Version: 0.0.3
Requires-Dist: einops
Requires-Dist: numpy
"""


def _ccvfi(drba: str = DRBA) -> dict[str, str]:
    return {
        "METADATA": CCVFI_METADATA,
        "ccvfi/__init__.py": "",
        "ccvfi/arch/__init__.py": "",
        "ccvfi/arch/drba_arch.py": drba,
        "ccvfi/arch/arch_utils/__init__.py": "",
        "ccvfi/arch/arch_utils/softsplat.py": SOFTSPLAT,
        "ccvfi/arch/arch_utils/softsplat_torch.py": SOFTSPLAT_TORCH,
    }


def test_a_kernel_module_chosen_against_a_twin_is_not_the_path(tmp_path: Path) -> None:
    for target in ("rocm:gfx942", "xpu", "mps"):
        report = audit_files(tmp_path / target, _ccvfi(), target)
        kernels = [f for f in report.findings if f.rule in ("cupy-kernel", "cuda-kernel-string")]
        assert kernels, target
        assert {f.risk for f in kernels} == {"lower"}, target
        assert all("one of two implementations" in f.meaning for f in kernels)
        assert report.verdict.risk == "lower", target


def test_twin_the_same_module_imported_unconditionally_is_the_path(tmp_path: Path) -> None:
    files = _ccvfi()
    files["ccvfi/model.py"] = "from ccvfi.arch.arch_utils.softsplat import softsplat\n"
    assert audit_files(tmp_path, files, "xpu").verdict.risk == "higher"


def test_twin_a_branch_with_no_twin_is_an_ordinary_lazy_import(tmp_path: Path) -> None:
    lone = DRBA.replace(
        "            from ccvfi.arch.arch_utils.softsplat_torch import softsplat as fwarp\n", ""
    )
    assert audit_files(tmp_path, _ccvfi(lone), "xpu").verdict.risk == "higher"


# BigVGAN 2.4.1 (trimmed): the choice binds Activation1d; the CUDA module JIT-loads the .cu beside load.py.
BIGVGAN = """\
import torch.nn as nn

from .alias_free_activation.torch.act import Activation1d as TorchActivation1d


class AMPBlock1(nn.Module):
    def __init__(self, h, channels):
        super().__init__()
        if h.get("use_cuda_kernel", False):
            from .alias_free_activation.cuda.activation1d import (
                Activation1d as CudaActivation1d,
            )

            Activation1d = CudaActivation1d
        else:
            Activation1d = TorchActivation1d
        self.act = Activation1d(channels)
"""
ACTIVATION1D = """\
import torch.nn as nn

from ..cuda import load

anti_alias_activation_cuda = load.load()


class Activation1d(nn.Module):
    def forward(self, x):
        return anti_alias_activation_cuda.forward(x)
"""
LOAD = """\
import pathlib

from torch.utils import cpp_extension


def load():
    srcpath = pathlib.Path(__file__).parent.absolute()
    sources = [srcpath / "anti_alias_activation.cpp", srcpath / "anti_alias_activation_cuda.cu"]
    return cpp_extension.load(name="anti_alias_activation_cuda", sources=sources, verbose=True)
"""
TORCH_ACT = "import torch.nn as nn\n\n\nclass Activation1d(nn.Module):\n    pass\n"
KERNEL = """\
#include <cuda_runtime.h>
__global__ void anti_alias(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
"""


def _bigvgan(choice: str = 'h.get("use_cuda_kernel", False)') -> dict[str, str]:
    return {
        "bigvgan/__init__.py": "",
        "bigvgan/bigvgan.py": BIGVGAN.replace('h.get("use_cuda_kernel", False)', choice),
        "bigvgan/alias_free_activation/__init__.py": "",
        "bigvgan/alias_free_activation/torch/__init__.py": "",
        "bigvgan/alias_free_activation/torch/act.py": TORCH_ACT,
        "bigvgan/alias_free_activation/cuda/__init__.py": "",
        "bigvgan/alias_free_activation/cuda/activation1d.py": ACTIVATION1D,
        "bigvgan/alias_free_activation/cuda/load.py": LOAD,
        "bigvgan/alias_free_activation/cuda/anti_alias_activation_cuda.cu": KERNEL,
    }


def test_a_jit_kernel_behind_an_off_switch_with_a_twin_is_not_the_path(tmp_path: Path) -> None:
    for target in ("rocm:gfx942", "xpu", "mps"):
        report = audit_files(tmp_path / target, _bigvgan(), target)
        sources = [f for f in report.findings if f.rule == "cuda-source"]
        assert sources, target
        assert {f.risk for f in sources} == {"lower"}, target
        assert report.verdict.risk == "lower", target


def test_twin_a_choice_on_cuda_is_taken_by_a_rocm_torch(tmp_path: Path) -> None:
    files = _bigvgan("torch.cuda.is_available()")
    assert audit_files(tmp_path / "xpu", files, "xpu").verdict.risk == "lower"
    rocm = audit_files(tmp_path / "rocm", files, "rocm:gfx942")
    assert {f.risk for f in rocm.findings if f.rule == "cuda-source"} == {"moderate"}


def test_twin_import_lines() -> None:
    assert twin_import_lines(DRBA) == {8: False, 12: False}
    assert twin_import_lines(BIGVGAN) == {10: False}
    device = "if torch.cuda.is_available():\n    from .a import f\nelse:\n    from .b import f\n"
    assert twin_import_lines(device) == {2: True, 4: True}
    chain = "if x:\n    from .a import f\nelif y:\n    from .b import f\nelse:\n    f = None\n"
    assert twin_import_lines(chain) == {2: False, 4: False}
    # Not twins: the other branch binds other names, or there is no other branch.
    assert twin_import_lines("if x:\n    from .a import f\nelse:\n    g = 1\n") == {}
    assert twin_import_lines("if x:\n    from .a import f\ny = 2\n") == {}


def test_twin_import_lines_on_hostile_text() -> None:
    huge = "if x:\n    from .a import (\n" + "        n,\n" * 10_000 + "    )\nelse:\n    n = None\n"
    assert twin_import_lines(huge) == {2: False}
    odd = "if \x1b[2J:\n\tfrom .a import f\n\telse:\nelse:\n  f = 1\n" + "\u202e" * 100
    assert isinstance(twin_import_lines(odd), dict)
    assert twin_import_lines("else:\n" * 30_000) == {}


# dgllife 0.3.2 (round 102): pure Python over DGL, whose kernels are CPU and CUDA builds only.
DGLLIFE_METADATA = """\
Metadata-Version: 2.1
Name: dgllife
Version: 0.3.2
Requires-Dist: scikit-learn (>=0.22.2)
Requires-Dist: pandas
"""
GCN = """\
import dgl
import torch.nn as nn
from dgl.nn.pytorch import GraphConv


class GCN(nn.Module):
    def forward(self, g, feats):
        g = dgl.add_self_loop(g)
        return GraphConv(feats.shape[1], 16)(g, feats)
"""


def test_dgl_has_no_intel_or_apple_backend(tmp_path: Path) -> None:
    files = {"METADATA": DGLLIFE_METADATA, "dgllife/model/gnn/gcn.py": GCN}
    for target, level in (("rocm:gfx942", "lower"), ("xpu", "higher"), ("mps", "higher"), ("cpu", "lower")):
        report = audit_files(tmp_path / target.replace(":", "-"), files, target)
        assert report.verdict.risk == level, target
        dgl = [f for f in report.findings if "dgl" in f.code]
        assert dgl, target
        assert all("DGL" in f.meaning for f in dgl)


# deepod 0.4.1 (round 101): setuptools wrote the spec in parentheses, Metadata 1.2 style.
DEEPOD_METADATA = """\
Metadata-Version: 2.1
Name: deepod
Version: 0.4.1
Requires-Dist: numpy (>=1.19)
Requires-Dist: torch (<1.13.1,>=1.10.0)

The README: pip install torch==2.0
"""


def test_a_parenthesised_metadata_pin_is_read(tmp_path: Path) -> None:
    report = audit_files(
        tmp_path, {"METADATA": DEEPOD_METADATA, "deepod/__init__.py": "import torch\n"}, "xpu"
    )
    pins = [f for f in report.findings if f.rule == "torch-pin"]
    assert [f.location for f in pins] == ["METADATA:5"]
    assert "<1.13.1,>=1.10.0" in pins[0].meaning


# manga-ocr 0.1.16 manga_ocr/ocr.py (round 106, trimmed): the ladder places the model itself, with log lines.
MANGA = """\
import logging

import torch

logger = logging.getLogger(__name__)


class MangaOcr:
    def __init__(self, model, force_cpu=False):
        self.model = model
        if not force_cpu and torch.cuda.is_available():
            logger.info("Using CUDA")
            self.model.cuda()
        elif not force_cpu and torch.backends.mps.is_available():
            logger.info("Using MPS")
            self.model.to("mps")
        else:
            logger.info("Using CPU")
"""
# backgroundremover 0.4.5 backgroundremover/bg.py (round 98, trimmed): an assignment among prints.
BACKGROUND = """\
import torch

if torch.cuda.is_available():
    DEVICE = torch.device("cuda:0")
    _gpu_name = torch.cuda.get_device_name(0)
    print(f"Device: CUDA ({_gpu_name})")
elif torch.backends.mps.is_available():
    DEVICE = torch.device("mps")
    print("Device: MPS (Apple Silicon GPU)")
else:
    DEVICE = torch.device("cpu")
    print("Device: CPU")
"""


def test_a_ladder_with_log_lines_or_placements_is_a_closed_set(tmp_path: Path) -> None:
    for name, text in (("manga_ocr/ocr.py", MANGA), ("backgroundremover/bg.py", BACKGROUND)):
        xpu = audit_files(tmp_path / name.split("/")[0] / "xpu", {name: text}, "xpu")
        choices = [f for f in xpu.findings if f.rule == "device-choices"]
        assert [f.risk for f in choices] == ["moderate"], name
        assert xpu.verdict.risk == "moderate", name
        # The ladder names MPS: on Apple silicon it is the project's path.
        mps = audit_files(tmp_path / name.split("/")[0] / "mps", {name: text}, "mps")
        assert mps.verdict.risk == "lower", name


def test_twin_a_branch_with_two_devices_is_no_selection(tmp_path: Path) -> None:
    log = '    print("Device: MPS (Apple Silicon GPU)")'
    two = BACKGROUND.replace(log, '    OTHER = torch.device("cpu")')
    report = audit_files(tmp_path, {"backgroundremover/bg.py": two}, "xpu")
    assert [f for f in report.findings if f.rule == "device-choices"] == []


# torchquad 0.6.0 torchquad/utils/set_precision.py (round 107, trimmed): one function, a branch per backend.
PRECISION = """\
import torch


def set_precision(data_type="float32", backend="torch"):
    if backend == "torch":
        dtype = {"float32": torch.float32, "float64": torch.float64}[data_type]
        torch.set_default_dtype(dtype)
        return torch.zeros(1, dtype=torch.float64)
    elif backend == "jax":
        from jax import config

        config.update("jax_enable_x64", data_type == "float64")
"""
TORCHQUAD_METADATA = "Metadata-Version: 2.1\nName: torchquad\nVersion: 0.6.0\nRequires-Dist: torch\n"


def test_an_import_in_one_branch_of_a_dispatch_is_that_branchs(tmp_path: Path) -> None:
    files = {"METADATA": TORCHQUAD_METADATA, "torchquad/utils/set_precision.py": PRECISION}
    report = audit_files(tmp_path / "a", files, "mps")
    float64 = [f for f in report.findings if f.rule == "float64-on-mps"]
    assert float64
    assert all("only in the function that imports" not in f.meaning for f in float64)
    assert report.verdict.risk == "moderate"
    # Twin: the same import at the top of the function makes all of it the JAX user's path.
    lazy = PRECISION.replace(
        '    if backend == "torch":\n', '    from jax import config\n\n    if backend == "torch":\n'
    )
    report = audit_files(tmp_path / "b", {**files, "torchquad/utils/set_precision.py": lazy}, "mps")
    assert report.verdict.risk == "lower"


MATCH = """\
def judge(backend, model):
    match backend:
        case "vllm":
            from vllm import LLM

            return LLM(model)
        case "transformers":
            return model.to("cuda")
"""


def test_a_match_case_is_a_branch_too(tmp_path: Path) -> None:
    metadata = "Metadata-Version: 2.1\nName: judge\nVersion: 1\nRequires-Dist: torch\n"
    report = audit_files(tmp_path, {"METADATA": metadata, "judge/llm.py": MATCH}, "xpu")
    hardcoded = [f for f in report.findings if f.rule == "hardcoded-cuda-device"]
    assert [f.risk for f in hardcoded] == ["moderate"]


# keras-hub 0.26 keras_hub/src/utils/keras_utils.py (trimmed): a pass per CUDA device, none off CUDA.
GPU_NAMES = """\
import torch


def gpu_names():
    return [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
"""


def test_a_comprehension_over_cuda_devices_makes_no_pass_off_cuda(tmp_path: Path) -> None:
    report = audit_files(tmp_path / "a", {"pkg/utils.py": GPU_NAMES}, "mps")
    assert {f.risk for f in report.findings if f.rule == "torch-cuda-api"} == {"lower"}
    # Twin: over a fixed range the call runs, and raises.
    fixed = GPU_NAMES.replace("range(torch.cuda.device_count())", "range(2)")
    report = audit_files(tmp_path / "b", {"pkg/utils.py": fixed}, "mps")
    assert {f.risk for f in report.findings if f.rule == "torch-cuda-api"} == {"moderate"}


# transparent-background 1.3.4 modules/layers.py (trimmed): a module's cuda() helper the library never calls.
CUDA_METHOD = """\
import torch


class Layer:
    def cuda(self, idx=None):
        if idx is None:
            idx = torch.cuda.current_device()
        self.weight = self.weight.to(idx)
        return self

    def size(self):
        return torch.cuda.current_device()
"""


def test_cuda_calls_in_a_cuda_method_are_the_callers_choice(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"pkg/layers.py": CUDA_METHOD}, "xpu")
    risks = {f.location: f.risk for f in report.findings if f.rule == "torch-cuda-api"}
    assert risks == {"pkg/layers.py:7": "lower", "pkg/layers.py:12": "moderate"}


# rl-games 1.6.5 METADATA (round 113): a cap for old interpreters beside an open requirement for new ones.
RL_GAMES_METADATA = """\
Metadata-Version: 2.1
Name: rl-games
Version: 1.6.5
Requires-Dist: torch>=2.2.2; python_version >= "3.9"
Requires-Dist: torch (>=2.2.2,<2.5.0) ; python_version < "3.9"
"""


def test_a_pin_for_older_pythons_only_is_no_cap(tmp_path: Path) -> None:
    files = {"METADATA": RL_GAMES_METADATA, "rl_games/__init__.py": "import torch\n"}
    report = audit_files(tmp_path / "a", files, "xpu")
    assert [f for f in report.findings if f.rule == "torch-pin"] == []
    # Twin: the same cap with no marker caps every install.
    capped = RL_GAMES_METADATA.replace(' ; python_version < "3.9"', "")
    report = audit_files(tmp_path / "b", {**files, "METADATA": capped}, "xpu")
    assert [f.location for f in report.findings if f.rule == "torch-pin"] == ["METADATA:5"]
