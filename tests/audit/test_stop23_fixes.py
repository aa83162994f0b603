"""Fixes after measurement rounds 188-207 (#22, stop 23), each with the real excerpt and a twin.

- learning3d 0.2.2 (round 190): a ``License:`` header whose blank lines are indentation alone ended the
  METADATA headers, so ``Requires-Dist: torch ==2.0.1`` (and every requirement after the licence) was never
  read. Reading it made rapids-singlecell's RAPIDS extras optional although its root ``__init__.py`` imports
  cuML, which the second fix answers.
- lava-dl 0.6.0 (round 189): JIT-built neuron kernels called only ``if input.is_cuda``, with a torch
  implementation for every other tensor, read as kernels to port (two levels off on MPS).
- mmdet3d 1.4.0 (round 190): mmcv's 3D point ops (no CPU or MPS implementation) read as mmcv ops with a
  torchvision swap.
- lietorch 0.6.2 (round 192): ``torch.version.cuda.split(".")`` at import, None on every other build, unread.
- torchaug 0.6.1 (round 194): ``torchvision<0.20`` caps torch at 2.4, before XPU wheels.
- pfns 0.4.2 (round 196): NCCL and ``cuda.set_device`` only ``if "LOCAL_RANK" in os.environ``.
- voxcpm 2.0.3 (round 198): a resolver returning per device and then raising "Unsupported device".
- notochord 0.8.0 (round 207): float64 in a Dataset's ``__getitem__``, built on the CPU.
- exllamav3 1.6.5 (round 206): ``if warp != 32: raise`` beside its ROCm branches (wave32 RDNA only).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit import knowledge
from envsnap.audit.scanners.build import scan_metadata
from envsnap.audit.scanners.torch_pin import torch_pins
from envsnap.render.audit import audit_markdown, render_audit
from envsnap.render.audit_json import audit_json
from envsnap.render.console import print_out
from tests.audit.conftest import audit_files, raised

# learning3d-0.2.2.dist-info/METADATA:1-12 and :39-40 (the licence trimmed to its first lines).
METADATA = (
    "Metadata-Version: 2.1\n"
    "Name: learning3d\n"
    "Version: 0.2.2\n"
    "License: The MIT License\n"
    "        \n"
    "        Copyright (c) 2010-2019 Google, Inc. http://angularjs.org\n"
    "        \n"
    "        Permission is hereby granted, free of charge, to any person obtaining a copy\n"
    "Requires-Python: >=3.8\n"
    "Requires-Dist: torch ==2.0.1\n"
    "Requires-Dist: pycuda\n"
    "\n"
    "# Learning3D\n"
    "pip install torch==2.5.0\n"
)


def test_whitespace_lines_of_a_multi_line_header_do_not_end_the_headers() -> None:
    pins = list(torch_pins("learning3d-0.2.2.dist-info/METADATA", METADATA))
    assert [(p.line, p.subject) for p in pins] == [(10, "==2.0.1")]
    required = {s.subject for s in scan_metadata("learning3d-0.2.2.dist-info/METADATA", METADATA)}
    assert "pycuda" in required


def test_the_empty_line_still_ends_them() -> None:
    # The README's install command after the empty line is no requirement and no pin.
    cut = METADATA.replace("        \n", "\n", 1)
    assert list(torch_pins("learning3d-0.2.2.dist-info/METADATA", cut)) == []
    assert [s.subject for s in scan_metadata("learning3d-0.2.2.dist-info/METADATA", cut)] == []


def test_an_exact_old_torch_pin_read_from_such_metadata_is_moderate_on_rocm(tmp_path: Path) -> None:
    model = "import torch\n\n\ndef run(x, device):\n    return torch.nn.Linear(3, 3).to(device)(x)\n"
    files = {
        "learning3d-0.2.2.dist-info/METADATA": METADATA.replace("Requires-Dist: pycuda\n", ""),
        "learning3d/models/net.py": model,
    }
    report = audit_files(tmp_path, files, "rocm:gfx942")
    assert report.verdict.risk == "moderate"
    assert "torch-pin" in raised(report)
    twin = dict(files)
    twin["learning3d-0.2.2.dist-info/METADATA"] = files["learning3d-0.2.2.dist-info/METADATA"].replace(
        "==2.0.1", ">=2.0.1"
    )
    assert audit_files(tmp_path / "twin", twin, "rocm:gfx942").verdict.risk == "lower"


# rapids-singlecell 0.13.4: METADATA lists RAPIDS only in its rapids12/rapids13 extras, and
# rapids_singlecell/__init__.py:3 imports cuML when the package loads.
RAPIDS_METADATA = (
    "Metadata-Version: 2.4\n"
    "Name: rapids-singlecell\n"
    "License: MIT\n"
    "        \n"
    "        Copyright (c) 2022 Severin Dicks\n"
    "Requires-Dist: anndata>=0.10.0\n"
    "Requires-Dist: scanpy>=1.10.0\n"
    "Provides-Extra: rapids12\n"
    "Requires-Dist: cudf-cu12>=25.10; extra == 'rapids12'\n"
    "Requires-Dist: cuml-cu12>=25.10; extra == 'rapids12'\n"
    "Provides-Extra: rapids13\n"
    "Requires-Dist: cudf-cu13>=25.10; extra == 'rapids13'\n"
    "Requires-Dist: cuml-cu13>=25.10; extra == 'rapids13'\n"
    "\n"
)
RAPIDS_INIT = (
    "from __future__ import annotations\n\nimport cuml.internals.logger as logger\n\nlogger.set_level(2)\n"
)


def test_an_extra_the_root_init_imports_is_required(tmp_path: Path) -> None:
    files = {
        "rapids_singlecell-0.13.4.dist-info/METADATA": RAPIDS_METADATA,
        "rapids_singlecell/__init__.py": RAPIDS_INIT,
        "rapids_singlecell/tl/run.py": "import torch\n\n\ndef run(x):\n    return torch.relu(x.to('cuda'))\n",
    }
    report = audit_files(tmp_path, files, "rocm:gfx942")
    assert report.verdict.risk == "higher"
    # The twin: the same import in a feature module is the extra's, a feature the project runs without.
    twin = dict(files)
    twin["rapids_singlecell/__init__.py"] = "from ._version import __version__\n"
    twin["rapids_singlecell/gpu/cuml_engine.py"] = RAPIDS_INIT
    assert audit_files(tmp_path / "twin", twin, "rocm:gfx942").verdict.risk == "moderate"


# lava-dl 0.6.0 lava/lib/dl/slayer/neuron/dynamics/leaky_integrator.py:14-46 and :88-99 (trimmed).
LEAKY_INTEGRATOR = """\
import os
import torch
from torch.utils.cpp_extension import load


class Accelerated:
    module = None

    @staticmethod
    def leaky_integrator():
        if Accelerated.module is None:
            if not torch.cuda.is_available():
                raise Exception(
                    'CUDA acceleration of Leaky Integrator failed. '
                    'CUDA is not available in the system.'
                )
            Accelerated.module = load(
                name='dynamics',
                sources=[
                    os.path.dirname(os.path.abspath(__file__))
                    + '/leaky_integrator.cu'
                ],
            )
        return Accelerated.module


def dynamics(input, decay, state, w_scale, threshold=None, debug=False):
    if input.is_cuda is False or debug is True:
        output = _LIDynamics.apply(input, decay, state, threshold, w_scale)
    else:
        output = Accelerated.leaky_integrator().dynamics(
            input.contiguous(), decay.contiguous(), state.contiguous(),
            threshold, w_scale
        )
    return output


class _LIDynamics(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, decay, state, threshold, w_scale):
        return input * decay + state
"""
KERNEL = """\
#include <torch/extension.h>

__global__ void fwdKernel(float* output, const float* input, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) output[i] = input[i];
}

torch::Tensor fwd(torch::Tensor input) {
    auto output = torch::empty_like(input);
    fwdKernel<<<1, 32>>>(output.data_ptr<float>(), input.data_ptr<float>(), input.numel());
    cudaDeviceSynchronize();
    return output;
}
"""
DYNAMICS = "lava/lib/dl/slayer/neuron/dynamics"


def test_a_jit_kernel_called_only_for_cuda_tensors_is_a_fast_path_off_cuda(tmp_path: Path) -> None:
    files = {f"{DYNAMICS}/leaky_integrator.py": LEAKY_INTEGRATOR, f"{DYNAMICS}/leaky_integrator.cu": KERNEL}
    for target in ("mps", "xpu"):
        report = audit_files(tmp_path / target, files, target)
        assert report.verdict.risk == "lower", target
    # A ROCm tensor is a CUDA one: there the kernel is built (hipified), not skipped.
    rocm = audit_files(tmp_path / "rocm", files, "rocm:gfx942")
    assert rocm.verdict.risk == "moderate"
    assert "cuda-source" in raised(rocm)


def test_without_the_tensor_dispatch_the_kernel_is_the_only_path(tmp_path: Path) -> None:
    only = LEAKY_INTEGRATOR.replace(
        "    if input.is_cuda is False or debug is True:\n"
        "        output = _LIDynamics.apply(input, decay, state, threshold, w_scale)\n"
        "    else:\n"
        "        output",
        "    if True:\n        output",
    )
    files = {f"{DYNAMICS}/leaky_integrator.py": only, f"{DYNAMICS}/leaky_integrator.cu": KERNEL}
    assert audit_files(tmp_path, files, "mps").verdict.risk == "higher"


def test_a_dispatch_to_a_cpu_extension_is_no_torch_path(tmp_path: Path) -> None:
    # qtorch 0.3.0: `if x.is_cuda: quant_cuda... else: quant_cpu...`, quant_cpu a JIT-built C++ extension that
    # device tensors reach: not lowered to "runs as shipped".
    cpu_twin = (
        LEAKY_INTEGRATOR + "\nquant_cpu = load(name='quant_cpu', sources=['quant_cpu/quant_cpu.cpp'])\n"
    )
    files = {
        f"{DYNAMICS}/leaky_integrator.py": cpu_twin,
        f"{DYNAMICS}/leaky_integrator.cu": KERNEL,
        f"{DYNAMICS}/quant_cpu/quant_cpu.cpp": "#include <torch/extension.h>\nint f() { return 0; }\n",
    }
    assert audit_files(tmp_path, files, "mps").verdict.risk != "lower"


def test_tensor_dispatch_is_read_from_the_tensor_not_the_process() -> None:
    import ast

    from envsnap.audit.scanners.python_shapes import tensor_dispatch

    def first_if(source: str) -> ast.If:
        node = ast.parse(source).body[0]
        assert isinstance(node, ast.If)
        return node

    assert tensor_dispatch(first_if("if x.is_cuda:\n    a()\nelse:\n    b()\n"))
    assert tensor_dispatch(first_if("if not x.is_cuda or debug:\n    a()\nelse:\n    b()\n"))
    assert not tensor_dispatch(first_if("if x.is_cuda:\n    a()\n"))  # no other path
    assert not tensor_dispatch(first_if("if torch.is_cuda:\n    a()\nelse:\n    b()\n"))
    assert not tensor_dispatch(first_if("if x.is_cpu:\n    a()\nelse:\n    b()\n"))


# mmdet3d 1.4.0 mmdet3d/models/layers/pointnet_modules/point_sa_module.py:6-8 and
# mmdet3d/models/middle_encoders/sparse_encoder.py:5 (trimmed), beside mmyolo's `from mmcv.ops import nms`.
POINT_SA = """\
import torch
from mmcv.cnn import ConvModule
from mmcv.ops import GroupAll
from mmcv.ops import PointsSampler as Points_Sampler
from mmcv.ops import QueryAndGroup, gather_points
from torch import nn


class BasePointSAModule(nn.Module):
    def forward(self, points_xyz, features):
        return gather_points(features, Points_Sampler([16])(points_xyz, features))
"""
NMS_HEAD = """\
from mmcv.ops import batched_nms


def predict(boxes, scores, labels):
    return batched_nms(boxes, scores, labels, dict(iou_threshold=0.5))
"""


def test_mmcv_ops_without_a_cpu_or_mps_implementation_are_kernels_to_port(tmp_path: Path) -> None:
    files = {"mmdet3d/models/layers/point_sa_module.py": POINT_SA}
    for target in ("xpu", "mps"):
        report = audit_files(tmp_path / target, files, target)
        assert report.verdict.risk == "higher", target
    assert audit_files(tmp_path / "rocm", files, "rocm:gfx942").verdict.risk == "lower"


def test_mmcv_ops_with_a_cpu_implementation_stay_moderate(tmp_path: Path) -> None:
    files = {"mmyolo/models/dense_heads/head.py": NMS_HEAD}
    assert audit_files(tmp_path, files, "mps").verdict.risk == "moderate"


def test_the_longest_import_prefix_names_the_row() -> None:
    op = knowledge.alternative_for_import("mmcv.ops.furthest_point_sample.furthest_point_sample")
    assert op is not None
    assert op.key == "mmcv-cuda-ops"
    other = knowledge.alternative_for_import("mmcv.ops.nms")
    assert other is not None
    assert other.key == "mmcv-ops"
    # A requirement of the distribution keeps the broader row.
    dist = knowledge.alternative_for_distribution("mmcv-full")
    assert dist is not None
    assert dist.key == "mmcv-ops"


# lietorch 0.6.2.post1 lietorch/__init__.py:38-58 (trimmed): the backend set-up run at import.
LIETORCH_INIT = """\
def _init_backend():
    import platform, os, torch

    path, filename = os.path.split(os.path.abspath(__file__))
    if platform.system() == "Linux":
        libpath = os.path.join(path, "lib/liblietorch.so")
    else:
        raise NotImplementedError(f"Error: {platform.system()} is not a supported platform")
    torch.ops.load_library(libpath)

    v = [int(x) for x in torch.version.cuda.split(".")]
    return 1000 * v[0] + 10 * v[1]


_init_backend()
"""


def test_an_unguarded_parse_of_the_cuda_version_fails_on_every_other_build(tmp_path: Path) -> None:
    files = {"lietorch/__init__.py": LIETORCH_INIT}
    for target in ("rocm:gfx942", "xpu", "mps"):
        report = audit_files(tmp_path / target.replace(":", "-"), files, target)
        assert report.verdict.risk == "moderate", target
        assert "torch-cuda-api" in raised(report)
    assert audit_files(tmp_path / "cuda", files, "cuda:sm_90").verdict.risk == "lower"


def test_a_parse_inside_a_test_is_one_branch() -> None:
    # torchaudio 2.x _extension/utils.py:118-121: `if ... torch.version.cuda is not None:` first.
    from envsnap.audit.scanners.python import scan_python

    guarded = LIETORCH_INIT.replace(
        '    v = [int(x) for x in torch.version.cuda.split(".")]\n    return',
        "    if torch.version.cuda is not None:\n"
        '        v = [int(x) for x in torch.version.cuda.split(".")]\n        return',
    )
    assert "torch.version.cuda is not None" in guarded
    signals = scan_python("lietorch/__init__.py", guarded)
    assert [s for s in signals if s.subject == "torch.version.cuda parsed"] == []
    # `torch.version.cuda or "0"` reads no None (xlstm 2.0's cuda_init.py:95).
    safe = 'import torch\nfrom packaging import version\n\nOK = version.parse(torch.version.cuda or "0")\n'
    assert [s for s in scan_python("x.py", safe) if s.subject == "torch.version.cuda parsed"] == []
    bare = "import torch\nfrom packaging import version\n\nOK = version.parse(torch.version.cuda)\n"
    assert [s.line for s in scan_python("x.py", bare) if s.subject == "torch.version.cuda parsed"] == [4]


# torchaug 0.6.1 torchaug-0.6.1.dist-info/METADATA:30-34 (trimmed).
TORCHAUG_METADATA = (
    "Metadata-Version: 2.1\n"
    "Name: torchaug\n"
    "Version: 0.6.1\n"
    "Requires-Python: >=3.9\n"
    "Requires-Dist: torch>=2.2.0\n"
    "Requires-Dist: torchvision<0.20,>=0.17.0\n"
    "\n"
)
AUGMENT = "import torch\n\n\ndef jitter(x):\n    return x * torch.rand(1, device=x.device)\n"


def test_a_torchvision_cap_caps_torch(tmp_path: Path) -> None:
    pins = list(torch_pins("torchaug-0.6.1.dist-info/METADATA", TORCHAUG_METADATA))
    assert [(p.subject, p.facts().get("companion")) for p in pins] == [
        ("torchvision<0.20,>=0.17.0", "torchvision")
    ]
    files = {"torchaug-0.6.1.dist-info/METADATA": TORCHAUG_METADATA, "torchaug/transforms/color.py": AUGMENT}
    report = audit_files(tmp_path, files, "xpu")
    assert report.verdict.risk == "moderate"
    assert any("torchvision<0.20" in f.meaning and "2.4" in f.meaning for f in report.findings)
    # torchvision 0.20 pairs with torch 2.5, the first with XPU wheels.
    twin = {**files, "torchaug-0.6.1.dist-info/METADATA": TORCHAUG_METADATA.replace("<0.20", "<0.21")}
    assert audit_files(tmp_path / "twin", twin, "xpu").verdict.risk == "lower"


# voxcpm 2.0.3 voxcpm/model/utils.py:198-231 (trimmed).
VOXCPM_UTILS = """\
import torch


def resolve_runtime_device(device=None, configured_device="cuda"):
    explicit = None if device is None else device.strip().lower()

    if explicit is None or explicit == "auto":
        return configured_device

    if explicit.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ValueError(f"Requested device '{device}', but CUDA is not available.")
        return explicit
    if explicit == "mps":
        return "mps"
    if explicit == "cpu":
        return "cpu"

    raise ValueError(
        f"Unsupported device '{device}'. Supported values are 'auto', 'cpu', 'mps', 'cuda'."
    )
"""


def test_a_device_resolver_that_returns_per_device_and_then_raises_is_a_gate(tmp_path: Path) -> None:
    files = {"voxcpm/model/utils.py": VOXCPM_UTILS}
    report = audit_files(tmp_path / "xpu", files, "xpu")
    assert report.verdict.risk == "moderate"
    assert "device-choices" in raised(report)
    assert audit_files(tmp_path / "mps", files, "mps").verdict.risk == "lower"  # 'mps' is admitted
    # The twin: the same ladder that hands anything else through is no gate.
    open_ended = VOXCPM_UTILS[: VOXCPM_UTILS.index('    raise ValueError(\n        f"Unsupported')]
    open_ended += "    return explicit\n"
    assert (
        audit_files(tmp_path / "twin", {"voxcpm/model/utils.py": open_ended}, "xpu").verdict.risk == "lower"
    )


# pfns 0.4.2 pfns/utils.py:303-324 (trimmed).
PFNS_INIT_DIST = """\
import datetime
import os

import torch


def init_dist(device):
    if "LOCAL_RANK" in os.environ:
        rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(rank)
        torch.distributed.init_process_group(
            backend="nccl",
            init_method="env://",
            timeout=datetime.timedelta(seconds=20),
            world_size=torch.cuda.device_count(),
            rank=rank,
        )
        return True, rank, f"cuda:{rank}"
    else:
        return False, 0, device
"""


def test_a_branch_only_launched_processes_take_is_multi_process(tmp_path: Path) -> None:
    files = {"pfns/utils.py": PFNS_INIT_DIST}
    assert audit_files(tmp_path / "xpu", files, "xpu").verdict.risk == "lower"
    # The twin: the same set-up run by every caller is the program's own path.
    always = PFNS_INIT_DIST.replace('    if "LOCAL_RANK" in os.environ:\n', "    if True:\n")
    report = audit_files(tmp_path / "twin", {"pfns/utils.py": always}, "xpu")
    assert report.verdict.risk == "moderate"
    assert "nccl-backend" in raised(report)


def test_the_new_readers_take_hostile_metadata(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    hostile = (
        "Metadata-Version: 2.1\n"
        "Name: x\n"
        "License: MIT \x1b[31mred\x1b[0m [bold]markup[/bold]\n"
        "        \n"
        "        AKIAIOSFODNN7EXAMPLE\n"
        f"Requires-Dist: torchvision<0.14 @ https://user:{token}@example.invalid/tv.whl\n"
        "Requires-Dist: torchvision<0.14" + " ;x" * 50_000 + "\n"
        "\n"
    )
    init = 'import torch\n\nv = torch.version.cuda.split(".")  # \x1b[2J\n'
    report = audit_files(tmp_path, {"x-1.0.dist-info/METADATA": hostile, "x/__init__.py": init}, "xpu")
    assert {"torch-pin", "torch-cuda-api"} <= raised(report)
    assert all(len(finding.code) <= 200 for finding in report.findings)
    print_out(render_audit(report))
    for shown in (capsys.readouterr().out, audit_markdown(report), audit_json(report)):
        assert token not in shown
        assert "AKIA" not in shown
        assert "\x1b" not in shown


# notochord 0.8.0 notochord/data.py:200-212 (trimmed): augmentation in a Dataset's __getitem__.
NOTOCHORD_DATA = """\
import torch
from torch.utils.data import Dataset


class MIDIDataset(Dataset):
    def __getitem__(self, idx):
        program, pitch, time, velocity = self.load(idx)
        time = time.double() * (1 + torch.randn(1) * self.speed_jitter)
        return program, pitch, time.float(), velocity
"""


def test_float64_in_a_dataset_is_built_on_the_cpu(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"notochord/data.py": NOTOCHORD_DATA}, "mps")
    assert report.verdict.risk == "lower"
    assert [f.rule for f in report.findings if "float64" in f.rule] == ["float64-in-dataset"]
    # The twin: the same cast in a model's forward runs on the device.
    model = NOTOCHORD_DATA.replace("from torch.utils.data import Dataset", "from torch import nn").replace(
        "class MIDIDataset(Dataset):", "class Notochord(nn.Module):"
    )
    assert audit_files(tmp_path / "twin", {"notochord/model.py": model}, "mps").verdict.risk == "moderate"


# exllamav3 1.6.5 exllamav3/util/arch_list.py:44-60 (trimmed) and __init__.py:39's ROCm branch.
EXL3_ARCH = """\
import os
import torch


def maybe_set_rocm_arch_env():
    archs = set()
    for i in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(i)
        warp = getattr(props, "warp_size", 32)
        if warp != 32:
            raise RuntimeError(
                f"Device {i} ({props.name}) executes {warp}-wide wavefronts. "
                f"exllamav3 on ROCm supports wave32 (RDNA) GPUs only."
            )
        archs.add(props.gcnArchName.split(":")[0])
    if archs and not os.environ.get("PYTORCH_ROCM_ARCH"):
        os.environ["PYTORCH_ROCM_ARCH"] = ";".join(sorted(archs))
"""
EXL3_INIT = """\
import torch


def set_allocator():
    if torch.version.hip:
        return
    torch.cuda.memory._set_allocator_settings("expandable_segments:True")
"""


def test_a_rocm_port_that_refuses_wave64_gpus_is_no_path_on_cdna(tmp_path: Path) -> None:
    files = {"exllamav3/util/arch_list.py": EXL3_ARCH, "exllamav3/__init__.py": EXL3_INIT}
    cdna = audit_files(tmp_path / "cdna", files, "rocm:gfx942")
    assert cdna.verdict.risk == "higher"
    assert "wave64-refused" in raised(cdna)
    # An RDNA GPU runs wave32: the ROCm branch is its path.
    assert audit_files(tmp_path / "rdna", files, "rocm:gfx1100").verdict.risk == "lower"
    # The twin: a check that admits any wavefront width refuses nothing.
    open_check = {
        **files,
        "exllamav3/util/arch_list.py": EXL3_ARCH.replace("if warp != 32:", "if warp < 32:"),
    }
    assert audit_files(tmp_path / "twin", open_check, "rocm:gfx942").verdict.risk == "lower"
