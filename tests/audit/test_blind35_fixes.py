"""Fixes from blind round 35 (#22), each on an excerpt of the real project that showed it (axolotl 0.19.0,
insightface 2.1; PyPI wheels, see tests/data/projects/real-*/SOURCE.md):

- axolotl requires ``triton>=3.4.0; sys_platform != "darwin"`` and documents its Mac support, but its LoRA
  kernels (``axolotl/kernels/swiglu.py``) import triton at module level, unguarded: the project's own Mac
  install has no triton, so those modules are on paths a Mac does not take. The unguarded import made its
  'mps' path "an import it needs has no build there" (higher, two levels from lower).
- insightface requires ``onnxruntime`` (the CPU build), and its README tells NVIDIA users to replace it with
  ``onnxruntime-gpu``: the documented NVIDIA install has the CUDA execution provider, so the CUDA branch of
  its provider policy is taken there and not on ROCm or XPU. Read as "installs only the CPU build", the
  target ran it "as the source does" (lower, expected moderate).
Each case keeps its twin that must not change, and the README reader its hostile input.
"""

from __future__ import annotations

import time
from pathlib import Path

from envsnap.audit.scanners.build import scan_metadata
from tests.audit.conftest import audit_files, raised

# axolotl 0.19.0 axolotl-0.19.0.dist-info/METADATA (headers, trimmed).
AXOLOTL_METADATA = """\
Metadata-Version: 2.4
Name: axolotl
Version: 0.19.0
Requires-Python: >=3.10
Requires-Dist: torch<=2.13.0,>=2.11.0
Requires-Dist: transformers==5.16.1
Requires-Dist: triton>=3.4.0; sys_platform != "darwin"

# Axolotl
"""

# axolotl 0.19.0 axolotl/kernels/swiglu.py (lines 1-16, trimmed).
SWIGLU = '''\
"""
Module for definition of SwiGLU Triton kernels.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _swiglu_fwd_kernel(gate_ptr, up_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pass
'''

# axolotl 0.19.0 axolotl/utils/config/__init__.py (lines 129-143).
CHOOSE_DEVICE = """\
import torch
from transformers.utils import is_torch_npu_available


def choose_device(cfg):
    def get_device():
        try:
            if torch.cuda.is_available():
                return f"cuda:{cfg.local_rank}"

            if torch.backends.mps.is_available():
                return "mps"

            if is_torch_npu_available():
                return f"npu:{cfg.local_rank}"

            raise SystemError("No CUDA/mps/npu device found")
        except Exception:
            return "cpu"

    cfg.device = get_device()
"""


def _axolotl(metadata: str = AXOLOTL_METADATA, kernel: str = "axolotl/kernels/swiglu.py") -> dict[str, str]:
    return {
        "axolotl-0.19.0.dist-info/METADATA": metadata,
        kernel: SWIGLU,
        "axolotl/utils/config/__init__.py": CHOOSE_DEVICE,
    }


def test_an_import_of_a_package_left_out_on_macos_is_off_the_mac_path(tmp_path: Path) -> None:
    result = audit_files(tmp_path, _axolotl(), "mps")
    assert result.verdict.risk == "lower"
    imports = [f for f in result.findings if f.rule == "cuda-only-import" and "triton" in f.code]
    assert imports
    assert all(f.risk == "moderate" for f in imports)
    assert all("leave it out on macos" in f.meaning for f in imports)


def test_the_same_import_without_the_marker_stays_a_blocker(tmp_path: Path) -> None:
    # Twin: a project that installs triton everywhere and imports it unguarded needs it on a Mac too.
    everywhere = AXOLOTL_METADATA.replace('triton>=3.4.0; sys_platform != "darwin"', "triton>=3.4.0")
    result = audit_files(tmp_path, _axolotl(everywhere), "mps")
    assert any(f.rule == "cuda-only-import" and f.risk == "higher" for f in result.findings)
    # Required everywhere, triton (no macOS wheels) keeps the project from installing on a Mac, and its MPS
    # path is only device names in Python: since stop 22 (instantsplat, #22 blind round 177) the required
    # package outranks such a path, and the verdict says why.
    assert result.verdict.risk == "higher"
    assert result.verdict.reasons[0].startswith("a code path, but a package it requires has no build there")


def test_an_import_in_the_package_root_stays_a_blocker(tmp_path: Path) -> None:
    # Twin (unsloth 2026.3 imports triton in unsloth/__init__.py and leaves triton out on macOS): the root
    # module loads wherever the project is imported, so the marker says the project does not run there.
    files = _axolotl(kernel="axolotl/__init__.py")
    result = audit_files(tmp_path, files, "mps")
    root = [f for f in result.findings if f.location.startswith("axolotl/__init__.py")]
    assert [f.risk for f in root if f.rule == "cuda-only-import"] == ["higher"]


def test_a_marker_for_linux_only_leaves_the_linux_targets_as_they_were(tmp_path: Path) -> None:
    # The marker is the Mac's: on ROCm (Linux) triton is installed and its kernels compile there.
    result = audit_files(tmp_path, _axolotl(), "rocm:gfx942")
    assert all("leave it out" not in f.meaning for f in result.findings)


def test_an_extra_only_requirement_marks_no_platform(tmp_path: Path) -> None:
    # ipex-llm 2.2: `bigdl-core-xe-21 ==2.6.0 ; extra == 'xpu'` evaluates false on every platform with no
    # extra chosen: that is an extra, not a platform's marker.
    extra = AXOLOTL_METADATA.replace('sys_platform != "darwin"', "extra == 'gpu'")
    result = audit_files(tmp_path, _axolotl(extra), "mps")
    assert all("leave it out on macos" not in f.meaning for f in result.findings)


# insightface 2.1 insightface-2.1.dist-info/METADATA (headers and README lines 84-102, trimmed).
INSIGHTFACE_METADATA = """\
Metadata-Version: 2.4
Name: insightface
Version: 2.1
Requires-Python: >=3.10
Requires-Dist: numpy
Requires-Dist: onnx>=1.13
Requires-Dist: onnxruntime
Requires-Dist: opencv-python

# InsightFace Python Library

The base package installs `onnxruntime`.

### NVIDIA CUDA

After installing InsightFace, replace the default runtime with the GPU
distribution:

```bash
python -m pip uninstall -y onnxruntime
python -m pip install onnxruntime-gpu
```
"""

# insightface 2.1 insightface/model_zoo/onnxruntime_utils.py (lines 1-15, 39-75, trimmed).
ORT_UTILS = '''\
"""Shared ONNX Runtime provider selection for InsightFace inference."""

import onnxruntime

DEFAULT_PROVIDER_PRIORITY = (
    "CoreMLExecutionProvider",
    "CUDAExecutionProvider",
    "CPUExecutionProvider",
)


def get_default_providers(available_providers=None):
    if available_providers is None:
        available_providers = onnxruntime.get_available_providers()
    available = list(available_providers)
    for provider in DEFAULT_PROVIDER_PRIORITY:
        if provider not in available:
            continue
        selected = [provider]
        if provider != "CPUExecutionProvider" and "CPUExecutionProvider" in available:
            selected.append("CPUExecutionProvider")
        return selected
    raise RuntimeError("ONNX Runtime reports no available execution providers")
'''

# insightface 2.1 insightface/app/face_analysis.py (lines 94-99, trimmed).
FACE_ANALYSIS = """\
from ..model_zoo.onnxruntime_utils import get_default_providers


class FaceAnalysis:
    def __init__(self, **kwargs):
        if kwargs.get("providers") is None:
            kwargs["providers"] = get_default_providers()
        providers = kwargs.get("providers") or ()
        if providers and providers[0] == "CoreMLExecutionProvider":
            kwargs.setdefault("static_shape_sessions", True)
"""


def _insightface(metadata: str = INSIGHTFACE_METADATA) -> dict[str, str]:
    return {
        "insightface-2.1.dist-info/METADATA": metadata,
        "insightface/model_zoo/onnxruntime_utils.py": ORT_UTILS,
        "insightface/app/face_analysis.py": FACE_ANALYSIS,
    }


def test_a_documented_onnxruntime_gpu_install_keeps_the_cuda_provider(tmp_path: Path) -> None:
    for target in ("rocm:gfx942", "xpu"):
        result = audit_files(tmp_path / target.split(":")[0], _insightface(), target)
        assert result.verdict.risk == "moderate", target
        assert "ort-cuda-provider" in raised(result)
        assert all("ships only in onnxruntime-gpu" not in f.meaning for f in result.findings)
    # CoreML is the Mac's provider in the default wheel, first in the project's own policy.
    assert audit_files(tmp_path / "mps", _insightface(), "mps").verdict.risk == "lower"


def test_without_the_readme_line_the_cpu_build_is_all_it_installs(tmp_path: Path) -> None:
    # Twin (torchmetrics 1.9, round 26): onnxruntime only, nothing said about onnxruntime-gpu.
    bare = INSIGHTFACE_METADATA.split("### NVIDIA CUDA")[0]
    result = audit_files(tmp_path, _insightface(bare), "rocm:gfx942")
    assert "ort-cuda-provider" not in raised(result)
    assert any("ships only in onnxruntime-gpu" in f.meaning for f in result.findings)


def test_the_readme_reader_names_only_onnx_runtime_builds_once() -> None:
    signals = list(scan_metadata("pkg-1.0.dist-info/METADATA", INSIGHTFACE_METADATA))
    documented = [s for s in signals if "documented=1" in s.detail]
    assert [(s.kind, s.subject, s.line) for s in documented] == [("declared", "onnxruntime-gpu", 21)]
    # A version, extras of other packages, and a second mention: one fact, the build's name.
    text = INSIGHTFACE_METADATA + (
        "pip install 'onnxruntime-gpu>=1.17' insightface[gui] flash-attn\n" * 3
        + "pip install onnxruntime-openvino\n"
    )
    documented = [s for s in scan_metadata("M/METADATA", text) if "documented=1" in s.detail]
    assert [s.subject for s in documented] == ["onnxruntime-gpu", "onnxruntime-openvino"]
    # A README sentence that names the build outside an install command says nothing.
    prose = INSIGHTFACE_METADATA.replace("python -m pip install onnxruntime-gpu", "see onnxruntime-gpu")
    assert not [s for s in scan_metadata("M/METADATA", prose) if "documented=1" in s.detail]


def test_the_readme_reader_on_hostile_input() -> None:
    # A huge body line, thousands of install lines, control characters, a name that only looks like one:
    # bounded time, at most one fact per build, no crash.
    huge = "pip install " + "onnxruntime-gpu " * 200_000
    many = "pip install onnxruntime-gpu\n" * 20_000
    odd = "pip install onnxruntime-gpu\x00 onnxruntime_\u00e9 onnxruntime-gpu-gpu-gpu --index-url x\n"
    started = time.perf_counter()
    for body in (huge, many, odd, "pip install\n" * 50_000, "install " * 100_000):
        text = "Metadata-Version: 2.4\nName: x\nRequires-Dist: onnxruntime\n\n" + body
        documented = [s for s in scan_metadata("x/METADATA", text) if "documented=1" in s.detail]
        assert len(documented) <= 2
        assert all(s.subject.startswith("onnxruntime") for s in documented)
    assert time.perf_counter() - started < 5
    # No blank line: no body, nothing documented.
    assert not [s for s in scan_metadata("x/METADATA", "Name: x\npip install onnxruntime-gpu") if s.detail]
