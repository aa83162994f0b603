"""Fixes from blind round 26 (#22), each on an excerpt of the real project that showed it (composer 0.32.1,
torchmetrics 1.9.0; PyPI sdists, see tests/data/projects/real-*/SOURCE.md):

- ``devices/device_gpu.py`` beside ``device_mps.py``: a per-device layout whose CUDA member is named ``gpu``.
  Its ``torch.cuda.set_device`` made composer moderate on MPS, where ``DeviceMPS`` replaces it.
- ``if te_installed and torch.cuda.get_device_capability() >= (8, 9):`` where ``te_installed`` records a
  ``try: import transformer_engine`` at module level: an availability check, like ``is_te_available()``.
- ``assert isinstance(new_scale, torch.cuda.FloatTensor)``: a type test, as ``new_scale.is_cuda`` is; nothing
  raises off CUDA. ``torch.finfo(torch.float64).eps`` is a Python float, no float64 tensor.
- torchmetrics picks ``CUDAExecutionProvider`` when ONNX Runtime lists it, but installs ``onnxruntime``, whose
  builds have no CUDA provider (onnxruntime-gpu has): as installed, the target runs it as the source does.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

import time
from pathlib import Path

from envsnap.audit.ports import gpu_member_siblings
from envsnap.audit.scanners.python_shapes import import_flags
from tests.audit.conftest import audit_files, raised

# composer 0.32.1 composer/devices/device_gpu.py (lines 10-55, trimmed).
DEVICE_GPU = """\
import torch
import torch.backends.cudnn
import torch.cuda

from composer.devices.device import Device
from composer.utils import dist


class DeviceGPU(Device):
    dist_backend = 'nccl'
    name = 'gpu'

    def __init__(self, device_id=None, *, allow_tf32=True):
        if not torch.cuda.is_available():
            raise ValueError('DeviceGPU cannot be created as torch.cuda is not available.')
        if device_id is None:
            device_id = dist.get_local_rank()
        self._device = torch.device(f'cuda:{device_id}')
        torch.cuda.set_device(self._device)
        assert torch.cuda.current_device() == device_id
        torch.backends.cudnn.allow_tf32 = allow_tf32

    def module_to_device(self, module):
        return module.to(self._device)
"""

# composer 0.32.1 composer/devices/device_mps.py (lines 20-40, trimmed).
DEVICE_MPS = """\
import torch

from composer.devices.device import Device


class DeviceMPS(Device):
    dist_backend = ''
    name = 'mps'

    def __init__(self) -> None:
        if not torch.backends.mps.is_available():
            raise RuntimeError('MPS requires MAC OSX >= 12.3')
        self._device = torch.device('mps')
"""

# composer 0.32.1 composer/core/precision.py (lines 6-20, 86-100, trimmed).
PRECISION = """\
import contextlib

import torch

try:
    import transformer_engine.pytorch as te
    te_installed = True
except ImportError:
    te_installed = False


@contextlib.contextmanager
def get_precision_context(precision, precision_config=None, fp8_autocast_enabled=True):
    if precision == 'amp_fp8':
        if te_installed and torch.cuda.get_device_capability() >= (8, 9):
            from transformer_engine.common.recipe import DelayedScaling

            fp8_recipe = DelayedScaling(**precision_config)
            with te.fp8_autocast(enabled=fp8_autocast_enabled, fp8_recipe=fp8_recipe):
                yield
        else:
            raise RuntimeError('AMP_FP8 precision is used but current device does not support it.')
    else:
        yield
"""

# composer 0.32.1 composer/trainer/_scaler.py (lines 98-117, trimmed; the message shortened).
SCALER = """\
import torch
from torch.cuda.amp.grad_scaler import GradScaler


class ClosureGradScaler(GradScaler):
    def update(self, new_scale=None):
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = 'new_scale should be a float or a 1-element torch.cuda.FloatTensor ...'
                assert isinstance(new_scale, torch.cuda.FloatTensor), reason
                self._scale.copy_(new_scale)
"""

# torchmetrics 1.9.0 src/torchmetrics/detection/_mean_ap.py (lines 832-839, trimmed).
MEAN_AP = """\
import torch


def calculate(tp_sum, fp_sum, npig):
    for tp, fp in zip(tp_sum, fp_sum):
        rc = tp / npig
        pr = tp / (fp + tp + torch.finfo(torch.float64).eps)
    return rc, pr
"""

# torchmetrics 1.9.0 src/torchmetrics/functional/audio/dnsmos.py (lines 20-30, 95-112, trimmed, rewrapped).
DNSMOS = """\
import torch

from torchmetrics.utilities.imports import _ONNXRUNTIME_AVAILABLE

if _ONNXRUNTIME_AVAILABLE:
    import onnxruntime as ort
    from onnxruntime import InferenceSession


def _load_session(path, device, num_threads=None):
    opts = ort.SessionOptions()
    if device.type == "cpu":
        infs = InferenceSession(path, providers=["CPUExecutionProvider"], sess_options=opts)
    elif "CUDAExecutionProvider" in ort.get_available_providers():  # win or linux with cuda
        providers = ["CUDAExecutionProvider", "CPUExecutionProvider"]
        provider_options = [{"device_id": device.index}, {}]
        infs = InferenceSession(
            path, providers=providers, provider_options=provider_options, sess_options=opts
        )
    elif "CoreMLExecutionProvider" in ort.get_available_providers():  # macos with coreml
        providers = ["CoreMLExecutionProvider", "CPUExecutionProvider"]
        provider_options = [{"device_id": device.index}, {}]
        infs = InferenceSession(
            path, providers=providers, provider_options=provider_options, sess_options=opts
        )
    else:
        infs = InferenceSession(path, providers=["CPUExecutionProvider"], sess_options=opts)
    return infs
"""

# torchmetrics 1.9.0 PKG-INFO (headers, trimmed).
TORCHMETRICS_PKG_INFO = """\
Metadata-Version: 2.1
Name: torchmetrics
Version: 1.9.0
Requires-Dist: numpy>1.20.0
Requires-Dist: torch>=2.0.0
Provides-Extra: audio
Requires-Dist: librosa>=0.10.0; extra == "audio"
Requires-Dist: onnxruntime>=1.12.0; extra == "audio"

# TorchMetrics
"""


# ---------------------------------------------------------------------------- per-device layout


def test_the_gpu_member_of_a_per_device_layout_is_the_cuda_one(tmp_path: Path) -> None:
    files = {"composer/devices/device_gpu.py": DEVICE_GPU, "composer/devices/device_mps.py": DEVICE_MPS}
    result = audit_files(tmp_path, files, "mps")
    assert raised(result) == set()
    calls = [f for f in result.findings if f.rule == "torch-cuda-api"]
    assert calls
    assert all("In the project's CUDA backend" in f.meaning for f in calls)


def test_the_gpu_member_stays_where_the_target_has_no_sibling(tmp_path: Path) -> None:
    # Twin: the same layout on XPU, which it has no member for; and the GPU member alone on MPS.
    files = {"composer/devices/device_gpu.py": DEVICE_GPU, "composer/devices/device_mps.py": DEVICE_MPS}
    assert "torch-cuda-api" in raised(audit_files(tmp_path / "a", files, "xpu"))
    alone = {"composer/devices/device_gpu.py": DEVICE_GPU}
    assert "torch-cuda-api" in raised(audit_files(tmp_path / "b", alone, "mps"))


def test_only_a_sibling_named_like_the_gpu_member_counts() -> None:
    files = {"d/device_gpu.py", "d/device_mps.py", "d/gpu_utils.py", "d/mps_ops.py", "x/gpu.py", "x/xpu.py"}
    assert gpu_member_siblings("d/device_gpu.py", files) == {"mps"}
    assert gpu_member_siblings("d/gpu_utils.py", files) == set()  # no d/mps_utils.py
    assert gpu_member_siblings("x/gpu.py", files) == {"xpu"}
    assert gpu_member_siblings("d/device_gpus.py", files | {"d/device_mpss.py"}) == set()
    assert gpu_member_siblings("d/gpu_mps.py", files) == set()


# ---------------------------------------------------------------------------- import flags, type tests


def test_a_flag_recording_an_optional_import_is_an_availability_check(tmp_path: Path) -> None:
    for target in ("xpu", "mps"):
        result = audit_files(tmp_path, {"composer/core/precision.py": PRECISION}, target)
        assert "torch-cuda-api" not in raised(result), target


def test_a_plain_module_flag_guards_nothing(tmp_path: Path) -> None:
    # Twin: the same flag set once, with no import it records, says nothing about the device.
    plain = PRECISION.replace(
        "try:\n    import transformer_engine.pytorch as te\n    te_installed = True\n"
        "except ImportError:\n    te_installed = False\n",
        "te_installed = True\n",
    )
    result = audit_files(tmp_path, {"composer/core/precision.py": plain}, "xpu")
    assert "torch-cuda-api" in raised(result)


def test_import_flags_need_the_import_and_both_values() -> None:
    lines = PRECISION.splitlines(keepends=True)
    assert import_flags(lines) == {"te_installed"}
    no_import = ["try:\n", "    x = 1\n", "    ok = True\n", "except ImportError:\n", "    ok = False\n"]
    assert import_flags(no_import) == set()
    other_error = ["try:\n", "    import a\n", "    ok = True\n", "except KeyError:\n", "    ok = False\n"]
    assert import_flags(other_error) == set()
    nested = [
        "def f():\n",
        "    try:\n",
        "        import a\n",
        "        ok = True\n",
        "    except ImportError:\n",
    ]
    assert import_flags(nested) == set()


def test_import_flags_on_hostile_input() -> None:
    # Markup and escapes in comments, a huge line, a secret-looking assignment: names only, bounded time.
    lines = [
        "try:  # <script>alert(1)</script> \\x1b[31m\n",
        '    import a  # \\\\ \\"\n',
        "    HAS_A = True  # <b>\n",
        '    TOKEN = "sk-live-0123456789abcdef"\n',
        "except (ImportError, OSError):  # ) :\n",
        "    HAS_A = False\n",
        "x = '" + "y" * 1_000_000 + "'\n",
        "except " + "(" * 100_000 + "\n",
    ]
    start = time.perf_counter()
    flags = import_flags(lines * 50)
    assert flags == {"HAS_A"}
    assert time.perf_counter() - start < 5
    many = [
        "try:\n",
        "    import a\n",
        *(["    F = True\n"] * 50_000),
        "except ImportError:\n",
        "    F = False\n",
    ]
    start = time.perf_counter()
    assert import_flags(many) == {"F"}
    assert time.perf_counter() - start < 5


def test_an_isinstance_test_against_a_cuda_tensor_type_raises_nothing(tmp_path: Path) -> None:
    for target in ("xpu", "mps"):
        result = audit_files(tmp_path, {"composer/trainer/_scaler.py": SCALER}, target)
        assert "torch-cuda-api" not in raised(result), target


def test_a_cuda_tensor_type_called_still_makes_a_cuda_tensor(tmp_path: Path) -> None:
    # Twin: ``torch.cuda.FloatTensor(1)`` builds a CUDA tensor, which raises off CUDA.
    made = SCALER.replace(
        "assert isinstance(new_scale, torch.cuda.FloatTensor), reason",
        "new_scale = torch.cuda.FloatTensor(1)",
    )
    result = audit_files(tmp_path, {"composer/trainer/_scaler.py": made}, "mps")
    assert "torch-cuda-api" in raised(result)


def test_finfo_of_float64_makes_no_float64_tensor(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"torchmetrics/detection/_mean_ap.py": MEAN_AP}, "mps")
    assert "float64-on-mps" not in raised(result)


def test_a_float64_tensor_beside_it_stays(tmp_path: Path) -> None:
    # Twin: a tensor made in float64 on the inputs' device is one.
    made = MEAN_AP.replace(
        "torch.finfo(torch.float64).eps", "torch.zeros(1, dtype=torch.float64, device=tp.device)"
    )
    result = audit_files(tmp_path, {"torchmetrics/detection/_mean_ap.py": made}, "mps")
    assert "float64-on-mps" in raised(result)


# ---------------------------------------------------------------------------- ONNX Runtime builds


def test_a_cuda_provider_the_installed_onnxruntime_lacks_changes_nothing(tmp_path: Path) -> None:
    files = {"torchmetrics/functional/audio/dnsmos.py": DNSMOS, "PKG-INFO": TORCHMETRICS_PKG_INFO}
    for target in ("rocm:gfx942", "xpu"):
        result = audit_files(tmp_path, files, target)
        assert raised(result) == set(), target
        providers = [f for f in result.findings if f.rule == "ort-cuda-provider"]
        assert providers
        assert all("ships only in onnxruntime-gpu" in f.meaning for f in providers)


def test_a_project_that_installs_onnxruntime_gpu_keeps_the_choice(tmp_path: Path) -> None:
    # Twin: the same code where onnxruntime-gpu is declared (an extra is enough) picks CUDA on NVIDIA.
    gpu = TORCHMETRICS_PKG_INFO.replace(
        "\n\n# TorchMetrics", '\nRequires-Dist: onnxruntime-gpu>=1.12.0; extra == "gpu"\n\n# TorchMetrics'
    )
    files = {"torchmetrics/functional/audio/dnsmos.py": DNSMOS, "PKG-INFO": gpu}
    assert "ort-cuda-provider" in raised(audit_files(tmp_path / "a", files, "rocm:gfx942"))
    # And a tree that declares no ONNX Runtime at all says nothing either way.
    bare = {"torchmetrics/functional/audio/dnsmos.py": DNSMOS}
    assert "ort-cuda-provider" in raised(audit_files(tmp_path / "b", bare, "rocm:gfx942"))
