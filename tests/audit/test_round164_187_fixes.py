"""Fixes after measurement rounds 164-187 (#22, stop 22), each with the real excerpt and a twin.

- transformers4rec 23.12 (round 166): isort's ``known_third_party`` in pyproject.toml read as RAPIDS required.
- fastreid 1.4.0 (round 167): detectron2's ``collect_env.py`` (it reports whether torch is a ROCm build) read
  as "already supported on ROCm".
- StrongSORT 0.2.1 (round 167): YOLOv5's export table heading ``columns=[..., "CPU", "GPU"]`` made the
  OpenVINO branch, which compiles with ``device_name="CPU"``, an Intel GPU path.
- cherry-rl 0.2.0 (round 164): float64 in ``def double(self)``, a cast the caller asks for.
- layoutparser 0.3.4 (round 165): ``if is_torch_cuda_available(): if device is None: device = "cuda"
  else: device = "cpu"`` replaces a caller's 'xpu' or 'mps' with the CPU.
- mmocr 1.0.1 (round 165): ``from mmcv.ops import RoIAlignRotated``, compiled ops, read as plain PyTorch.
- torch-sim-atomistic 0.3.0 (round 170): ``if model.device == "cpu": raise`` read as a CUDA guard.
- hippynn 0.1.3 (round 170): Numba CUDA and CuPy kernel modules that only ``try``-imported modules load, read
  as a path every run needs (two levels off).
- instantsplat 1.17.6 (round 177): the required ``gaussian-splatting`` (the 3DGS CUDA rasterizer) outranked
  by a vendored module's ``torch.mps`` (two levels off on MPS).
- span-marker 1.8.1 (round 184): ``try: return self.cuda(device) except (AssertionError, RuntimeError)``
  read as a hard-coded CUDA device.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit.scanners.build import scan_build
from tests.audit.conftest import audit_files, raised

# transformers4rec 23.12.0 pyproject.toml (trimmed) and a guarded cudf import like data/yoochoose.py:67.
PYPROJECT = """\
[build-system]
requires = [
    "setuptools>=42",
    "wheel"
]
build-backend = "setuptools.build_meta"

[tool.isort]
use_parentheses = true
known_third_party = ["cudf", "cupy", "dask", "dask_cuda", "dask_cudf", "numba", "numpy", "pytest", "rmm"]

[[tool.mypy.overrides]]
module = ["cupy", "cudf"]
ignore_missing_imports = true
"""
LOADER = """\
try:
    import cudf
except ImportError:
    cudf = None


def read(path):
    return cudf.read_parquet(path) if cudf is not None else None
"""


def test_linter_tables_of_pyproject_hold_no_requirements() -> None:
    signals = list(scan_build("pyproject.toml", PYPROJECT, "build"))
    assert [s for s in signals if s.kind == "requirement"] == []


def test_the_same_names_in_the_dependencies_are_requirements() -> None:
    declared = PYPROJECT + '\n[project]\nname = "x"\ndependencies = ["cudf-cu12", "numpy"]\n'
    signals = list(scan_build("pyproject.toml", declared, "build"))
    assert [(s.kind, s.subject) for s in signals if s.kind == "requirement"] == [("requirement", "cudf-cu12")]


def test_a_guarded_import_beside_linter_settings_is_an_opt_in_on_rocm(tmp_path: Path) -> None:
    files = {"pyproject.toml": PYPROJECT, "t4r/data/loader.py": LOADER}
    report = audit_files(tmp_path, files, "rocm:gfx942")
    assert report.verdict.risk == "lower"
    assert "cuda-only-requirement" not in raised(report)
    declared = dict(files)
    declared["pyproject.toml"] = PYPROJECT + '\n[project]\nname = "x"\ndependencies = ["cudf-cu12"]\n'
    assert audit_files(tmp_path / "twin", declared, "rocm:gfx942").verdict.risk == "moderate"


# fastreid 1.4.0 fastreid/utils/collect_env.py:63-76 (detectron2's, trimmed).
COLLECT_ENV = """\
import torch


def collect_env_info():
    has_gpu = torch.cuda.is_available()  # true for both CUDA & ROCM
    torch_version = torch.__version__
    from torch.utils.cpp_extension import CUDA_HOME

    has_rocm = False
    if tuple(map(int, torch_version.split(".")[:2])) >= (1, 5):
        from torch.utils.cpp_extension import ROCM_HOME

        if (getattr(torch.version, "hip", None) is not None) and (ROCM_HOME is not None):
            has_rocm = True
    has_cuda = has_gpu and (not has_rocm)
    return has_cuda, CUDA_HOME
"""


def test_an_environment_report_is_no_rocm_port(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"reid/utils/collect_env.py": COLLECT_ENV}, "rocm:gfx942")
    assert report.verdict.supported == ()


def test_the_same_reads_in_a_library_module_are_a_port(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"reid/utils/build.py": COLLECT_ENV}, "rocm:gfx942")
    assert any("ROCm" in line or "ROCM" in line for line in report.verdict.supported)


# StrongSORT 0.2.1 strongsort/reid_multibackend.py:24-39 and :152-167 (YOLOv5's, trimmed).
MULTIBACKEND = """\
import pandas as pd


def export_formats():
    x = [
        ["PyTorch", "-", ".pt", True, True],
        ["OpenVINO", "openvino", "_openvino_model", True, False],
    ]
    return pd.DataFrame(x, columns=["Format", "Argument", "Suffix", "CPU", "GPU"])


class ReIDDetectMultiBackend:
    def __init__(self, w, device):
        self.device = device
        if str(w).endswith(".xml"):  # OpenVINO
            from openvino.runtime import Core

            ie = Core()
            network = ie.read_model(model=w)
            self.executable_network = ie.compile_model(network, device_name="CPU")
        else:
            import torch

            self.model = torch.jit.load(w, map_location=device)
"""


def test_openvino_on_the_cpu_beside_a_table_heading_is_no_intel_gpu_path(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"tracker/reid_multibackend.py": MULTIBACKEND}, "xpu")
    assert not any("OpenVINO" in line for line in report.verdict.supported)


def test_openvino_compiled_for_the_gpu_is_an_intel_gpu_path(tmp_path: Path) -> None:
    source = MULTIBACKEND.replace('device_name="CPU"', 'device_name="GPU"')
    report = audit_files(tmp_path, {"tracker/reid_multibackend.py": source}, "xpu")
    assert any("OpenVINO" in line for line in report.verdict.supported)


# cherry-rl 0.2.0 cherry/experience_replay.py:150-154 (Transition, trimmed).
TRANSITION = """\
import torch as th


class Transition:
    def __init__(self, state, reward, device=None):
        self.state = th.as_tensor(state, device=device)
        self.reward = th.as_tensor(reward, device=device)

    def _apply(self, fn):
        return Transition(fn(self.state), fn(self.reward))

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)
"""


def test_float64_in_a_cast_method_is_the_callers_request_on_mps(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"rl/replay.py": TRANSITION}, "mps")
    assert report.verdict.risk == "lower"
    assert [f.rule for f in report.findings if f.location == "rl/replay.py:16"] == ["float64-opt-in-mps"]


def test_float64_in_another_method_still_counts_on_mps(tmp_path: Path) -> None:
    source = TRANSITION.replace("def double(self):", "def normalized(self):")
    report = audit_files(tmp_path, {"rl/replay.py": source}, "mps")
    assert report.verdict.risk == "moderate"
    assert "float64-on-mps" in raised(report)


# layoutparser 0.3.4 layoutparser/models/detectron2/layoutmodel.py:109-114 (trimmed).
LAYOUT_MODEL = """\
from .file_utils import is_torch_cuda_available


class Detectron2LayoutModel:
    def __init__(self, config_path, device=None):
        if is_torch_cuda_available():
            if device is None:
                device = "cuda"
        else:
            device = "cpu"
        self.device = device
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_cuda_check_that_replaces_the_callers_device_is_a_discard(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, {"lp/layoutmodel.py": LAYOUT_MODEL}, target)
    choices = [f for f in report.findings if f.rule == "device-choices"]
    assert [(f.location, f.risk) for f in choices] == [("lp/layoutmodel.py:6", "moderate")]
    assert "only where CUDA is available" in choices[0].meaning
    assert report.verdict.risk == "moderate"


@pytest.mark.parametrize(
    "twin",
    [
        # The else branch fills in only an unset device: the caller's 'xpu' survives.
        LAYOUT_MODEL.replace(
            '        else:\n            device = "cpu"',
            '        elif device is None:\n            device = "cpu"',
        ),
        # No caller's device at all: a cuda-or-cpu selection, judged as one elsewhere.
        LAYOUT_MODEL.replace("            if device is None:\n                device", "            device"),
    ],
    ids=["keeps-the-callers-device", "plain-selection"],
)
def test_twins_that_keep_the_callers_device_are_no_discard(tmp_path: Path, twin: str) -> None:
    report = audit_files(tmp_path, {"lp/layoutmodel.py": twin}, "xpu")
    assert not [f for f in report.findings if "only where CUDA is available" in f.meaning]


# mmocr 1.0.1 mmocr/models/textdet/heads/drrg_head.py:14 (trimmed).
DRRG_HEAD = """\
import torch
import torch.nn as nn
from mmcv.ops import RoIAlignRotated


class DRRGHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.roi = RoIAlignRotated((3, 3), 1.0)

    def forward(self, x, rois):
        return self.roi(x, rois)
"""


@pytest.mark.parametrize(
    ("target", "risk"), [("xpu", "moderate"), ("mps", "moderate"), ("rocm:gfx942", "lower")]
)
def test_mmcv_compiled_ops_have_no_intel_or_metal_kernels(tmp_path: Path, target: str, risk: str) -> None:
    report = audit_files(tmp_path, {"ocr/heads/drrg_head.py": DRRG_HEAD}, target)
    assert report.verdict.risk == risk


def test_mmcv_without_its_ops_is_plain_pytorch(tmp_path: Path) -> None:
    source = DRRG_HEAD.replace("from mmcv.ops import RoIAlignRotated", "from mmcv.cnn import ConvModule")
    report = audit_files(tmp_path, {"ocr/heads/drrg_head.py": source}, "xpu")
    assert report.verdict.risk == "lower"


# torch-sim-atomistic 0.3.0 torch_sim/autobatching.py:226-247 (trimmed), round 170.
ESTIMATE = """\
import torch


def measure_model_memory_forward(state, model):
    if (isinstance(model.device, str) and model.device == "cpu") or (
        isinstance(model.device, torch.device) and model.device.type == "cpu"
    ):
        raise ValueError("Memory estimation does not make sense on CPU and is unsupported.")
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    model(state)
    return torch.cuda.max_memory_allocated() / 1024**3
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_refusing_only_the_cpu_guards_no_cuda_call(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, {"sim/autobatching.py": ESTIMATE}, target)
    assert report.verdict.risk == "moderate"
    assert "torch-cuda-api" in raised(report)


def test_refusing_every_device_but_cuda_guards_the_cuda_calls(tmp_path: Path) -> None:
    source = ESTIMATE.replace('model.device == "cpu"', 'model.device != "cuda"').replace(
        'model.device.type == "cpu"', 'model.device.type != "cuda"'
    )
    report = audit_files(tmp_path, {"sim/autobatching.py": source}, "xpu")
    assert report.verdict.risk == "lower"


# hippynn 0.1.3 custom_kernels (trimmed), round 170: an optional CuPy module and the Numba CUDA helper that
# only optional modules load, through a module in between.
KERNELS_INIT = """\
import torch

from . import env_pytorch


def populate():
    try:
        import numba
        from . import env_numba
    except ImportError:
        pass
    if torch.cuda.is_available():
        try:
            import cupy
            from . import env_cupy
        except ImportError:
            pass
"""
ENV_PYTORCH = "def envsum(a, b):\n    return a @ b\n"
ENV_NUMBA = """\
import numba
import numba.cuda

from .tensor_wrapper import via_numba


def envsum(a, b):
    return via_numba(a, b)
"""
TENSOR_WRAPPER = """\
from .fast_convert import batch_convert_torch_to_numba


def via_numba(a, b):
    return batch_convert_torch_to_numba(a, b)
"""
FAST_CONVERT = """\
from numba.cuda.cudadrv import devices, devicearray


def batch_convert_torch_to_numba(*tensors):
    return [devicearray.DeviceNDArray(t.shape, t.stride(), t.dtype) for t in tensors]
"""
ENV_CUPY = '''\
import cupy

from .env_numba import envsum as envsum_alternative

CUPY_KERNEL_CODE = r"""
extern "C" __global__ void envsum(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i];
}
"""
_MODULE = cupy.RawModule(code=CUPY_KERNEL_CODE)
'''


def _hippynn(init: str = KERNELS_INIT) -> dict[str, str]:
    folder = "md/custom_kernels/"
    return {
        folder + "__init__.py": init,
        folder + "env_pytorch.py": ENV_PYTORCH,
        folder + "env_numba.py": ENV_NUMBA,
        folder + "tensor_wrapper.py": TENSOR_WRAPPER,
        folder + "fast_convert.py": FAST_CONVERT,
        folder + "env_cupy.py": ENV_CUPY,
    }


@pytest.mark.parametrize(
    ("target", "risk"), [("xpu", "moderate"), ("mps", "moderate"), ("rocm:gfx942", "lower")]
)
def test_kernel_modules_loaded_only_from_optional_ones_are_optional(
    tmp_path: Path, target: str, risk: str
) -> None:
    report = audit_files(tmp_path, _hippynn(), target)
    assert report.verdict.risk == risk
    convert = [f for f in report.findings if f.location.startswith("md/custom_kernels/fast_convert.py")]
    assert convert
    assert all(f.risk != "higher" for f in convert)
    kernel = [f for f in report.findings if f.rule == "cupy-kernel"]
    assert kernel
    assert "optional fast path" in kernel[0].meaning


def test_the_same_modules_loaded_at_the_top_are_the_kernel_path(tmp_path: Path) -> None:
    eager = "import torch\n\nfrom . import env_pytorch, env_numba, env_cupy\n"
    report = audit_files(tmp_path, _hippynn(eager), "xpu")
    assert report.verdict.risk == "higher"
    assert "cupy-kernel" in {f.rule for f in report.findings if f.risk == "higher"}


def test_a_module_imported_under_a_device_branch_is_no_optional_one(tmp_path: Path) -> None:
    guarded = KERNELS_INIT.index("        try:\n            import cupy")
    branch = KERNELS_INIT[:guarded] + "        from . import env_cupy\n"
    files = _hippynn(branch)
    report = audit_files(tmp_path, files, "xpu")
    kernel = [f for f in report.findings if f.rule == "cupy-kernel"]
    assert kernel
    assert "optional fast path" not in kernel[0].meaning


# instantsplat 1.17.6 (trimmed): the required 3DGS package, a trainer that imports it, and the vendored Depth
# Anything V2 that names torch.mps.
SPLAT_METADATA = """\
Metadata-Version: 2.4
Name: instantsplat
Version: 1.17.6
Requires-Dist: gaussian-splatting>=2.11.0
Requires-Dist: torch
Requires-Dist: einops
"""
SPLAT_TRAINER = """\
from gaussian_splatting import GaussianModel
from gaussian_splatting.trainer import CameraTrainer


def train(dataset, steps):
    model = GaussianModel(3)
    return CameraTrainer(model, dataset).train(steps)
"""
DEPTH = """\
import torch


def pick_device():
    if torch.cuda.is_available():
        return "cuda"
    if torch.backends.mps.is_available():
        torch.mps.empty_cache()
        return "mps"
    return "cpu"
"""


def _instantsplat(metadata: str = SPLAT_METADATA) -> dict[str, str]:
    return {
        "instantsplat-1.17.6.dist-info/METADATA": metadata,
        "instantsplat/trainer/trainer.py": SPLAT_TRAINER,
        "instantsplat/depth_anything_v2/dpt.py": DEPTH,
    }


@pytest.mark.parametrize(
    ("target", "risk"), [("mps", "higher"), ("xpu", "higher"), ("rocm:gfx942", "moderate")]
)
def test_a_required_package_with_no_build_outranks_a_code_path(
    tmp_path: Path, target: str, risk: str
) -> None:
    report = audit_files(tmp_path, _instantsplat(), target)
    assert report.verdict.risk == risk
    assert "cuda-only-requirement" in raised(report)


def test_the_code_path_names_the_package_it_cannot_install(tmp_path: Path) -> None:
    report = audit_files(tmp_path, _instantsplat(), "mps")
    assert report.verdict.reasons[0].startswith("a code path, but a package it requires has no build there")


def test_the_same_package_as_an_extra_leaves_the_code_path_deciding(tmp_path: Path) -> None:
    extra = SPLAT_METADATA.replace(
        "Requires-Dist: gaussian-splatting>=2.11.0",
        'Requires-Dist: gaussian-splatting>=2.11.0; extra == "train"',
    )
    files = _instantsplat(extra)
    files["instantsplat/trainer/trainer.py"] = (
        "def train(dataset, steps):\n"
        + "".join("    " + line + "\n" for line in SPLAT_TRAINER.splitlines()[:2])
        + "    return GaussianModel, CameraTrainer\n"
    )
    report = audit_files(tmp_path, files, "mps")
    assert report.verdict.risk == "lower"


def test_a_backend_of_its_own_still_sets_the_verdict(tmp_path: Path) -> None:
    # Twin: a backend file for the device (strong evidence, like sglang's platforms/mps.py) outranks it.
    files = _instantsplat()
    files["instantsplat/platforms/mps.py"] = (
        'import torch\n\ndevice_type = "mps"\n\n\ndef sync():\n    torch.mps.synchronize()\n'
    )
    report = audit_files(tmp_path, files, "mps")
    assert report.verdict.risk == "lower"
    assert report.verdict.reasons[0].startswith("already supported on Apple MPS")


# instantsplat's vendored vggt/dependency/projection.py (trimmed): a library helper that the module's own
# self-check calls from its `if __name__ == "__main__":` block.
SELF_CHECK = """\
import torch


def project(points):
    torch.cuda.synchronize()
    return points * 2


if __name__ == "__main__":
    result = project(torch.ones(3, device="cuda"))
    print(result)
"""


def test_a_call_from_the_main_block_does_not_guard_the_helper(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"geo/projection.py": SELF_CHECK}, "xpu")
    assert report.verdict.risk == "moderate"
    assert [f.location for f in report.findings if f.rule == "torch-cuda-api"] == ["geo/projection.py:5"]


def test_a_device_guard_inside_the_main_block_still_guards_it(tmp_path: Path) -> None:
    call = '    result = project(torch.ones(3, device="cuda"))\n'
    guarded = SELF_CHECK.replace(call, "    if torch.cuda.is_available():\n    " + call)
    report = audit_files(tmp_path, {"geo/projection.py": guarded}, "xpu")
    assert report.verdict.risk == "lower"


# span-marker 1.8.1 span_marker/modeling.py:625-641 (trimmed), round 184: a CUDA attempt that keeps the model
# where it is when CUDA is not there.
TRY_CUDA = """\
import torch
from torch import nn


class SpanMarkerModel(nn.Module):
    def try_cuda(self, device=None):
        try:
            return self.cuda(device)
        except (AssertionError, RuntimeError):
            return self
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_cuda_call_whose_refusal_is_caught_is_an_attempt(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, {"span/modeling.py": TRY_CUDA}, target)
    assert report.verdict.risk == "lower"


def test_a_handler_that_catches_something_else_guards_nothing(tmp_path: Path) -> None:
    # RuntimeError alone ("No CUDA GPUs are available") is what a CUDA build without a GPU raises; torch built
    # for XPU or MPS raises AssertionError, which that handler lets through (#22 blind round 3).
    source = TRY_CUDA.replace("except (AssertionError, RuntimeError):", "except RuntimeError:")
    report = audit_files(tmp_path, {"span/modeling.py": source}, "xpu")
    assert report.verdict.risk == "moderate"
    assert "hardcoded-cuda-device" in raised(report)
