"""Fixes after measurement rounds 140-143 (#22): a header of declarations that goes with twinned CUDA
sources; float64 in a ``try`` that handles MPS's refusal.

TorchOpt 0.7.3 (round 143) keeps ``src/adam_op/adam_op_impl_cuda.cu`` beside ``adam_op_impl_cpu.cpp``, and
the declarations in ``include/adam_op/adam_op_impl_cuda.cuh``: the .cu file was read as a kernel with a CPU
twin (moderate) but the header, in another folder, as CUDA code to port (*higher* on XPU and MPS, two levels
above the truth). toto-ts 0.2.0 (round 140) casts to float64 in a ``try`` whose ``except TypeError`` falls
back to float32 "for devices that don't support float64": read as float64 on MPS.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from envsnap.audit.scanners.python_shapes import catches_dtype_refusal
from tests.audit.conftest import audit_files, raised

# torchopt 0.7.3 (trimmed): the declarations header, the CUDA kernel and its CPU twin.
HEADER = """\
#pragma once

#include <torch/extension.h>

namespace torchopt {
namespace adam_op {
torch::Tensor adamForwardMuCUDA(const torch::Tensor &updates, const torch::Tensor &mu, const float b1);
}  // namespace adam_op
}  // namespace torchopt
"""
KERNEL = """\
#include <torch/extension.h>
#include "include/adam_op/adam_op_impl_cuda.cuh"

namespace torchopt {
namespace adam_op {
template <typename scalar_t, typename other_t>
__global__ void adamForwardMuCUDAKernel(const scalar_t *__restrict__ updates_ptr,
                                        const scalar_t *__restrict__ mu_ptr,
                                        const other_t b1,
                                        const size_t n,
                                        scalar_t *__restrict__ mu_out_ptr) {
  const size_t toffset = (threadIdx.x + blockIdx.x * blockDim.x);
  if (toffset >= n) {
    return;
  }
  mu_out_ptr[toffset] = b1 * mu_ptr[toffset] + (1 - b1) * updates_ptr[toffset];
}

torch::Tensor adamForwardMuCUDA(const torch::Tensor &updates, const torch::Tensor &mu, const float b1) {
  auto mu_out = torch::empty_like(mu);
  const size_t n = updates.numel();
  adamForwardMuCUDAKernel<float, float><<<(n + 255) / 256, 256>>>(
      updates.data_ptr<float>(), mu.data_ptr<float>(), b1, n, mu_out.data_ptr<float>());
  return mu_out;
}
}  // namespace adam_op
}  // namespace torchopt
"""
CPU_TWIN = """\
#include <torch/extension.h>

namespace torchopt {
namespace adam_op {
torch::Tensor adamForwardMuCPU(const torch::Tensor &updates, const torch::Tensor &mu, const float b1) {
  return b1 * mu + (1 - b1) * updates;
}
}  // namespace adam_op
}  // namespace torchopt
"""


def _torchopt(with_twin: bool) -> dict[str, str]:
    files = {
        "include/adam_op/adam_op_impl_cuda.cuh": HEADER,
        "src/adam_op/adam_op_impl_cuda.cu": KERNEL,
    }
    if with_twin:
        files["src/adam_op/adam_op_impl_cpu.cpp"] = CPU_TWIN
    return files


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_declarations_header_goes_with_its_twinned_sources(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _torchopt(with_twin=True), target)
    header = [f for f in report.findings if f.location.startswith("include/adam_op/adam_op_impl_cuda.cuh")]
    assert [(f.rule, f.risk) for f in header] == [("cuda-kernel-cpu-twin", "moderate")]
    assert report.verdict.risk == "moderate"


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_without_the_cpu_twin_the_kernel_is_still_to_port(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _torchopt(with_twin=False), target)
    assert report.verdict.risk == "higher"
    assert "cuda-kernel-cpu-twin" not in raised(report)


def test_a_header_with_a_kernel_of_its_own_is_not_a_declaration(tmp_path: Path) -> None:
    files = _torchopt(with_twin=True)
    files["include/adam_op/adam_op_impl_cuda.cuh"] = HEADER + (
        "__global__ void scale(float *x, float a, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) x[i] *= a;\n"
        "}\n"
    )
    report = audit_files(tmp_path, files, "xpu")
    header = [f for f in report.findings if f.location.startswith("include/adam_op/")]
    assert [(f.rule, f.risk) for f in header] == [("cuda-source", "higher")]


# toto-ts 0.2.0 toto/model/scaler.py (StdMeanScaler.__call__, trimmed).
SCALER = """\
import warnings

import torch


def standardize(data, weights):
    try:
        high_precision_data = data.to(torch.float64)
    except TypeError:
        # Certain backends (particularly MacOS/MPS) don't support float64.
        warnings.warn(f"Float64 is not supported by device {data.device}.", RuntimeWarning)
        high_precision_data = data.to(torch.float32)
    denominator = weights.sum(-1, keepdim=True).clamp_min(1.0).to(high_precision_data.dtype)
    return (high_precision_data * weights).sum(-1, keepdim=True) / denominator
"""


def test_float64_whose_refusal_is_handled_falls_back_on_mps(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"toto/model/scaler.py": SCALER}, "mps")
    cast = [f for f in report.findings if f.location == "toto/model/scaler.py:8"]
    assert [(f.rule, f.risk) for f in cast] == [("float64-with-fallback", "lower")]
    assert report.verdict.risk == "lower"


@pytest.mark.parametrize(
    "handler",
    [
        "except ValueError:\n        high_precision_data = data.to(torch.float32)",  # not MPS's refusal
        'except TypeError:\n        raise RuntimeError("float64 needed")',  # handled by failing
        "except Exception:\n        high_precision_data = data.to(torch.float32)",  # too broad to say
    ],
)
def test_other_handlers_leave_float64_on_mps(tmp_path: Path, handler: str) -> None:
    source = (
        "import torch\n\n\ndef standardize(data):\n    try:\n        high_precision_data = "
        f"data.to(torch.float64)\n    {handler}\n    return high_precision_data\n"
    )
    report = audit_files(tmp_path, {"toto/model/scaler.py": source}, "mps")
    assert "float64-on-mps" in raised(report)


@pytest.mark.parametrize(
    ("handler", "handles"),
    [
        ("except TypeError:\n    y = 1", True),
        ("except (TypeError, RuntimeError):\n    y = 1", True),
        ("except TypeError as e:\n    if strict:\n        raise\n    y = 1", True),
        ("except TypeError:\n    raise", False),
        ("except RuntimeError:\n    y = 1", False),
        ("except:\n    y = 1", False),
    ],
)
def test_which_handlers_take_over_from_the_refusal(handler: str, handles: bool) -> None:
    statement = ast.parse(f"try:\n    y = 0\n{handler}\n").body[0]
    assert isinstance(statement, ast.Try)
    assert catches_dtype_refusal(statement.handlers[0]) is handles


# orb-models 0.5.5 orb_models/forcefield/pretrained.py (orb_v2_architecture's end, trimmed).
ORB = """\
import torch


def place(model, device=None):
    device = get_device(device)
    if device is not None and device != torch.device("cpu"):
        model.cuda(device)
    else:
        model = model.cpu()
    return model
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_set_and_not_cpu_test_guards_no_cuda_call(tmp_path: Path, target: str) -> None:
    # mps is also a ported path here (the module names no 'mps'), so the finding raises the verdict.
    report = audit_files(tmp_path, {"orb_models/forcefield/pretrained.py": ORB}, target)
    moved = [f for f in report.findings if f.location == "orb_models/forcefield/pretrained.py:7"]
    assert [(f.rule, f.risk) for f in moved] == [("hardcoded-cuda-device", "moderate")]


@pytest.mark.parametrize(
    "test",
    [
        'device is not None and device.type == "cuda"',  # a CUDA test: the body runs on CUDA only
        "device is not None and torch.cuda.is_available()",
    ],
)
def test_a_set_and_cuda_test_still_guards(tmp_path: Path, test: str) -> None:
    source = ORB.replace('device is not None and device != torch.device("cpu")', test)
    report = audit_files(tmp_path, {"orb_models/forcefield/pretrained.py": source}, "xpu")
    assert "hardcoded-cuda-device" not in raised(report)


# ---------------------------------------------------------------------------- rounds 144-147

# auto_LiRPA 0.3 auto_LiRPA/cuda_utils.py (trimmed): a setup() run only as a script, its module imported in
# a try, and else a JIT build of the same sources behind a CUDA check and an opt-in variable.
LIRPA = """\
import os
import sys
import torch
from torch.utils.cpp_extension import load, BuildExtension, CUDAExtension
from setuptools import setup


class DummyCudaClass:
    def __getattr__(self, attr):
        def _f(x, d):
            return x.float()
        return _f


if __name__ == "__main__" and len(sys.argv) > 1:
    setup(
        name='auto_LiRPA_cuda_utils',
        ext_modules=[CUDAExtension('auto_LiRPA_cuda_utils', [
            'auto_LiRPA/cuda/cuda_utils.cpp',
            'auto_LiRPA/cuda/cuda_kernels.cu'
        ])],
        cmdclass={'build_ext': BuildExtension.with_options()},
    )
    exit(0)

if torch.cuda.is_available() and os.environ.get('AUTOLIRPA_ENABLE_CUDA_BUILD', False):
    try:
        import auto_LiRPA_cuda_utils as _cuda_utils
    except:
        try:
            code_dir = os.path.dirname(os.path.abspath(__file__))
            _cuda_utils = load(
                'cuda_utils', [os.path.join(code_dir, 'cuda', 'cuda_utils.cpp'),
                               os.path.join(code_dir, 'cuda', 'cuda_kernels.cu')])
        except:
            _cuda_utils = DummyCudaClass()
else:
    _cuda_utils = DummyCudaClass()

double2float = _cuda_utils.double2float
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_guarded_jit_build_beside_a_script_only_extension_is_optional(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, {"auto_LiRPA/cuda_utils.py": LIRPA}, target)
    assert report.verdict.risk == "lower"
    load = [f for f in report.findings if f.location == "auto_LiRPA/cuda_utils.py:32"]
    assert [(f.rule, f.risk) for f in load] == [("cuda-extension", "lower")]


def test_an_extension_not_imported_in_a_guard_keeps_the_jit_build_a_build(tmp_path: Path) -> None:
    # Without the guarded import the setup-time extension is the project's build, not an option.
    source = LIRPA.replace("import auto_LiRPA_cuda_utils as _cuda_utils", "_cuda_utils = None", 1)
    report = audit_files(tmp_path, {"auto_LiRPA/cuda_utils.py": source}, "xpu")
    load = [f for f in report.findings if f.location == "auto_LiRPA/cuda_utils.py:32"]
    assert [(f.rule, f.risk) for f in load] == [("cuda-extension", "higher")]


# torchattacks 3.5.1 torchattacks/attacks/apgd.py (APGD.perturb, trimmed).
SEEDS = """\
import torch


def perturb(self, x):
    torch.random.manual_seed(self.seed)
    torch.cuda.random.manual_seed(self.seed)
    torch.cuda.manual_seed_all(self.seed)
    torch.cuda.seed()
    return x
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_cuda_seeding_is_ignored_without_cuda(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, {"torchattacks/attacks/apgd.py": SEEDS}, target)
    assert "torch-cuda-api" not in raised(report)
    assert report.verdict.risk == "lower"


def test_other_cuda_random_calls_still_raise(tmp_path: Path) -> None:
    source = SEEDS.replace("torch.cuda.seed()", "state = torch.cuda.random.get_rng_state()")
    report = audit_files(tmp_path, {"torchattacks/attacks/apgd.py": source}, "xpu")
    assert "torch-cuda-api" in raised(report)


# BCEmbedding 0.1.5 BCEmbedding/models/embedding.py (EmbeddingModel.__init__, trimmed).
BCE = """\
import torch


class EmbeddingModel:
    def __init__(self, device=None):
        num_gpus = torch.cuda.device_count()
        if device is None:
            self.device = "cuda" if num_gpus > 0 else "cpu"
        else:
            self.device = 'cuda:{}'.format(int(device)) if device.isdigit() else device

        if self.device == "cpu":
            self.num_gpus = 0
        elif self.device.startswith('cuda:') and num_gpus > 0:
            self.num_gpus = 1
        elif self.device == "cuda":
            self.num_gpus = num_gpus
        else:
            raise ValueError("Please input valid device: 'cpu', 'cuda', 'cuda:0', '0' !")
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_device_chain_with_prefix_tests_that_raises_is_a_gate(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, {"BCEmbedding/models/embedding.py": BCE}, target)
    gate = [f for f in report.findings if f.rule == "device-choices"]
    assert [(f.location, f.risk) for f in gate] == [("BCEmbedding/models/embedding.py:12", "moderate")]
    assert "cpu, cuda and" in gate[0].meaning or "cpu, cuda" in gate[0].meaning


def test_a_chain_that_names_the_target_admits_it(tmp_path: Path) -> None:
    source = BCE.replace('elif self.device == "cuda":', 'elif self.device == "cuda" or self.device == "xpu":')
    report = audit_files(tmp_path, {"BCEmbedding/models/embedding.py": source}, "xpu")
    assert "device-choices" not in raised(report)


def test_a_chain_that_ends_without_raising_is_no_gate(tmp_path: Path) -> None:
    source = BCE.replace(
        "raise ValueError(\"Please input valid device: 'cpu', 'cuda', 'cuda:0', '0' !\")", "self.num_gpus = 1"
    )
    report = audit_files(tmp_path, {"BCEmbedding/models/embedding.py": source}, "xpu")
    assert "device-choices" not in raised(report)


def test_a_table_keyed_by_device_is_a_menu() -> None:
    from envsnap.audit.scanners.device_gates import gate_devices

    tree = ast.parse(
        'TABLE = {"cuda": (1, 2), "mps": (3, 4)}\n'
        "def check(device_name):\n"
        "    if device_name not in TABLE:\n"
        '        raise ValueError(f"Unknown device {device_name}")\n'
    )
    table = tree.body[0]
    assert isinstance(table, ast.Assign)
    function = tree.body[1]
    assert isinstance(function, ast.FunctionDef)
    gate = function.body[0]
    assert isinstance(gate, ast.If)
    assert gate_devices(gate, lambda name: table.value if name == "TABLE" else None) == ["cuda", "mps"]


# WhisperLive 0.10.0 (trimmed): server.py loads the TensorRT backend only when it is chosen; that module
# imports the TensorRT-LLM transcriber at its top, which imports tensorrt_llm at its own.
WHISPER_LIVE = {
    # The requirements do not name tensorrt_llm (its README installs it for that backend only).
    "pyproject.toml": '[project]\nname = "whisper_live"\ndependencies = ["faster-whisper", "torch"]\n',
    "whisper_live/__init__.py": "",
    "whisper_live/backend/__init__.py": "",
    "whisper_live/transcriber/__init__.py": "",
    "whisper_live/server.py": (
        "import torch\n"
        "from faster_whisper import WhisperModel\n\n\n"
        "def initialize_client(self, websocket, options):\n"
        "    if self.backend.is_tensorrt():\n"
        "        try:\n"
        "            from whisper_live.backend.trt_backend import ServeClientTensorRT\n"
        "            return ServeClientTensorRT(websocket)\n"
        "        except Exception as e:\n"
        '            print(f"TensorRT-LLM not supported: {e}")\n'
        "    return WhisperModel('small', device='cuda' if torch.cuda.is_available() else 'cpu')\n"
    ),
    "whisper_live/backend/trt_backend.py": (
        "from whisper_live.transcriber.transcriber_tensorrt import WhisperTRTLLM\n\n\n"
        "class ServeClientTensorRT:\n"
        "    def __init__(self, websocket):\n"
        "        self.transcriber = WhisperTRTLLM(websocket)\n"
    ),
    "whisper_live/transcriber/transcriber_tensorrt.py": (
        "import torch\n"
        "import tensorrt_llm\n"
        "from tensorrt_llm.runtime import PYTHON_BINDINGS, ModelConfig\n"
        "if PYTHON_BINDINGS:\n"
        "    from tensorrt_llm.runtime import ModelRunnerCpp\n\n\n"
        "class WhisperTRTLLM:\n"
        "    def __init__(self, engine_dir):\n"
        "        self.config = ModelConfig(engine_dir)\n"
    ),
}


def test_a_module_loaded_only_by_a_lazily_loaded_one_is_lazy_too(tmp_path: Path) -> None:
    report = audit_files(tmp_path, WHISPER_LIVE, "rocm:gfx942")
    assert report.verdict.risk == "lower"
    trt = [
        f
        for f in report.findings
        if f.location.startswith("whisper_live/transcriber/transcriber_tensorrt.py")
    ]
    # The four imports, the one under `if PYTHON_BINDINGS:` too, are one row, listed and not raising.
    assert [(f.location, f.count, f.risk) for f in trt] == [
        ("whisper_live/transcriber/transcriber_tensorrt.py:2", 4, "lower")
    ]


def test_a_backend_module_loaded_at_import_keeps_its_requirement(tmp_path: Path) -> None:
    files = dict(WHISPER_LIVE)
    files["whisper_live/server.py"] = (
        "from whisper_live.backend.trt_backend import ServeClientTensorRT\n" + files["whisper_live/server.py"]
    )
    report = audit_files(tmp_path, files, "rocm:gfx942")
    assert report.verdict.risk == "higher"
    assert "cuda-only-import" in raised(report)


# torch-encoding 1.2.1 encoding/lib/__init__.py (trimmed): the CPU ops are built always, the CUDA ops only
# where CUDA is; the kernels are JIT-built, nothing at install.
ENCODING_INIT = """\
import os
import torch
from torch.utils.cpp_extension import load

cwd = os.path.dirname(os.path.realpath(__file__))
cpu_path = os.path.join(cwd, 'cpu')
gpu_path = os.path.join(cwd, 'gpu')

cpu = load('enclib_cpu', [
        os.path.join(cpu_path, 'operator.cpp'),
        os.path.join(cpu_path, 'encoding_cpu.cpp'),
    ], build_directory=cpu_path, verbose=False)

if torch.cuda.is_available():
    gpu = load('enclib_gpu', [
            os.path.join(gpu_path, 'operator.cpp'),
            os.path.join(gpu_path, 'encoding_kernel.cu'),
            os.path.join(gpu_path, 'activation_kernel.cu'),
        ], extra_cuda_cflags=["--expt-extended-lambda"],
        build_directory=gpu_path, verbose=False)
"""
KERNEL_CU = """\
#include <torch/extension.h>

__global__ void Aggregate_Forward_kernel(float *E, const float *A, const float *X, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) E[i] = A[i] * X[i];
}

at::Tensor Aggregate_Forward_CUDA(const at::Tensor A, const at::Tensor X) {
  auto E = torch::zeros_like(A);
  Aggregate_Forward_kernel<<<(A.numel() + 255) / 256, 256>>>(
      E.data_ptr<float>(), A.data_ptr<float>(), X.data_ptr<float>(), A.numel());
  return E;
}
"""


def _encoding(init: str) -> dict[str, str]:
    kernels = {
        f"encoding/lib/gpu/{n}": KERNEL_CU.replace("Aggregate", n[:3])
        for n in (
            "encoding_kernel.cu",
            "activation_kernel.cu",
            "nms_kernel.cu",
            "roi_align_kernel.cu",
            "syncbn_kernel.cu",
        )
    }
    cpu = {
        "encoding/lib/cpu/encoding_cpu.cpp": "#include <torch/extension.h>\n\n"
        "at::Tensor Aggregate_Forward_CPU(const at::Tensor A, const at::Tensor X) {\n  return A * X;\n}\n"
    }
    return {"encoding/__init__.py": "", "encoding/lib/__init__.py": init, **kernels, **cpu}


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_jit_builds_behind_a_cuda_check_are_a_fast_path_not_ports(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, _encoding(ENCODING_INIT), target)
    assert report.verdict.risk == "moderate"
    kernels = {f.rule for f in report.findings if f.location.startswith("encoding/lib/gpu/")}
    assert kernels == {"cuda-kernel-checked-build"}
    assert raised(report) == {"cuda-kernel-checked-build"}


def test_a_checked_jit_build_without_cpu_kernels_is_still_the_only_path(tmp_path: Path) -> None:
    files = {k: v for k, v in _encoding(ENCODING_INIT).items() if "/cpu/" not in k}
    report = audit_files(tmp_path, files, "xpu")
    assert report.verdict.risk == "higher"
    assert "cuda-kernel-checked-build" not in {f.rule for f in report.findings}


def test_an_unchecked_jit_build_is_still_kernels_to_port(tmp_path: Path) -> None:
    init = ENCODING_INIT.replace("if torch.cuda.is_available():\n    gpu", "if True:\n    gpu")
    report = audit_files(tmp_path, _encoding(init), "xpu")
    assert report.verdict.risk == "higher"
    assert "cuda-kernel-checked-build" not in {f.rule for f in report.findings}


# torchensemble 0.2.0 torchensemble/_base.py (BaseModule.__init__, trimmed): `cuda=True` is the user's switch.
ENSEMBLE = """\
import torch
import torch.nn as nn


class BaseModule(nn.Module):
    def __init__(self, estimator, n_estimators, estimator_args=None, cuda=True, n_jobs=None):
        super(BaseModule, self).__init__()
        self.base_estimator_ = estimator
        self.n_estimators = n_estimators
        self.device = torch.device("cuda" if cuda else "cpu")
"""
# pyro-ppl 1.9 pyro/poutine/subsample_messenger.py (_Subsample, trimmed): a deprecated switch, off (None).
PYRO = """\
import torch


class _Subsample:
    def __init__(self, size, subsample_size, use_cuda=None, device=None):
        self.size = size
        self.use_cuda = use_cuda
        self.device = device or torch.tensor(tuple()).device

    def sample(self):
        result = torch.randperm(self.size, device=self.device)
        return result.cuda() if self.use_cuda else result
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_cuda_switch_in_a_conditional_expression_is_the_users(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, {"torchensemble/_base.py": ENSEMBLE}, target)
    placed = [f for f in report.findings if f.location == "torchensemble/_base.py:10"]
    assert [(f.rule, f.risk) for f in placed] == [("hardcoded-cuda-device", "moderate")]
    assert "switch" in placed[0].meaning


def test_a_cuda_switch_off_by_default_is_opt_in(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"pyro/poutine/subsample_messenger.py": PYRO}, "xpu")
    assert "hardcoded-cuda-device" not in raised(report)
    off = ENSEMBLE.replace("cuda=True", "cuda=False")
    report = audit_files(tmp_path / "off", {"torchensemble/_base.py": off}, "xpu")
    assert "hardcoded-cuda-device" not in raised(report)


def test_an_availability_check_in_a_conditional_expression_still_falls_through(tmp_path: Path) -> None:
    source = ENSEMBLE.replace('"cuda" if cuda else "cpu"', '"cuda" if torch.cuda.is_available() else "cpu"')
    report = audit_files(tmp_path, {"torchensemble/_base.py": source}, "xpu")
    assert "hardcoded-cuda-device" not in raised(report)


# XGrammar 0.2.9 xgrammar/kernels/ (trimmed): the CUDA implementation JIT-builds its .cu at import, beside
# the CPU and Triton implementations of the same op that the matcher picks by device.
XG_CUDA_PY = """\
from pathlib import Path

import torch
import torch.utils.cpp_extension


def _load_torch_ops() -> None:
    source = Path(__file__).with_suffix(".cu").read_text()
    torch.utils.cpp_extension.load_inline(
        name="xgrammar", cpp_sources=[], cuda_sources=[source], with_cuda=True, is_python_module=False
    )


_load_torch_ops()
"""
XG_CU = """\
#include <torch/extension.h>

__global__ void ApplyTokenBitmaskInplaceKernel(float *logits, const int *bitmask, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && !((bitmask[i / 32] >> (i % 32)) & 1)) logits[i] = -INFINITY;
}
"""
XG_CPU_PY = """\
import torch


def apply_token_bitmask_inplace_cpu(logits, bitmask):
    logits.masked_fill_(~bitmask, -1e9)
"""


def _xgrammar(with_siblings: bool) -> dict[str, str]:
    files = {
        "xgrammar/__init__.py": "",
        "xgrammar/kernels/__init__.py": "",
        "xgrammar/kernels/apply_token_bitmask_inplace_cuda.py": XG_CUDA_PY,
        "xgrammar/kernels/apply_token_bitmask_inplace_cuda.cu": XG_CU,
    }
    if with_siblings:
        files["xgrammar/kernels/apply_token_bitmask_inplace_cpu.py"] = XG_CPU_PY
        files["xgrammar/kernels/apply_token_bitmask_inplace_torch_compile.py"] = XG_CPU_PY
    return files


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_cuda_implementation_module_beside_its_siblings_is_one_of_several(
    tmp_path: Path, target: str
) -> None:
    report = audit_files(tmp_path, _xgrammar(with_siblings=True), target)
    kernel = [f for f in report.findings if f.location.endswith("apply_token_bitmask_inplace_cuda.cu:1")]
    assert [f.risk for f in kernel] == ["lower"]
    assert report.verdict.risk == "lower"


def test_a_cuda_module_without_siblings_is_the_only_implementation(tmp_path: Path) -> None:
    report = audit_files(tmp_path, _xgrammar(with_siblings=False), "xpu")
    assert report.verdict.risk == "higher"


# rapids-singlecell 0.13.4 rapids_singlecell/__init__.py (trimmed): cuML loads with the package.
RSC_INIT = """\
from __future__ import annotations

import cuml.internals.logger as logger

from . import dcg, gr, pp, tl
"""


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_rapids_has_no_build_off_nvidia(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, {"rapids_singlecell/__init__.py": RSC_INIT}, target)
    rapids = [f for f in report.findings if f.rule == "cuda-only-import"]
    assert [(f.location, f.risk) for f in rapids] == [("rapids_singlecell/__init__.py:3", "higher")]
    assert "RAPIDS" in rapids[0].meaning


def test_rapids_behind_an_import_guard_is_an_option(tmp_path: Path) -> None:
    # torchani 2.9's parquet backend: `try: import cudf` with a pandas path beside it.
    guarded = "try:\n    import cudf\nexcept ImportError:\n    cudf = None\n"
    report = audit_files(tmp_path, {"torchani/datasets/backends/parquet_impl.py": guarded}, "rocm:gfx942")
    assert report.verdict.risk != "higher"


# ParaAttention 0.3.38 src/para_attn/ops/__init__.py (_templated_ring_attention, trimmed).
RING = """\
import torch


def _templated_ring_attention(mesh, query, key, value):
    device = query.device
    assert torch.version.hip is None, "HIP is not supported"
    return torch.nn.functional.scaled_dot_product_attention(query, key, value)
"""


def test_an_assert_refusing_hip_stops_rocm_and_is_no_port(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"para_attn/ops/__init__.py": RING}, "rocm:gfx942")
    refused = [f for f in report.findings if f.location == "para_attn/ops/__init__.py:6"]
    assert [(f.rule, f.risk) for f in refused] == [("torch-cuda-api", "moderate")]
    assert "AssertionError" in refused[0].meaning
    assert report.verdict.risk == "moderate"
    assert not any("already supported" in reason for reason in report.verdict.reasons)


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_an_assert_refusing_hip_passes_elsewhere(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, {"para_attn/ops/__init__.py": RING}, target)
    assert report.verdict.risk == "lower"


def test_a_branch_on_hip_is_still_a_port(tmp_path: Path) -> None:
    source = RING.replace(
        '    assert torch.version.hip is None, "HIP is not supported"\n',
        "    if torch.version.hip is not None:\n        query = query.contiguous()\n",
    )
    report = audit_files(tmp_path, {"para_attn/ops/__init__.py": source}, "rocm:gfx942")
    assert report.verdict.risk == "lower"
    assert "torch-cuda-api" not in raised(report)
