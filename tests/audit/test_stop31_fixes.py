"""Fixes after measurement rounds 496-503 (#22, stop 31), each with the real files and a twin.

- A CUDA C++ kernel string that the project compiles itself (PyCUDA's SourceModule, KeOps' NVRTC binder,
  spconv's cumm, nvcc in a subprocess) is higher on ROCm: no HIP path ships to switch to. Through CuPy
  (whose ROCm build compiles RawKernel source with hiprtc) or torch's cpp_extension (hipified by ROCm
  torch) it stays moderate. Corpus truths: keops, pycuda, spconv, lunaequivariance, trainkernel say higher
  on ROCm; leanquant (CuPy) and lettucecfd (cpp_extension) moderate.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.knowledge import alternative_for_distribution, alternative_for_import
from envsnap.audit.model import AuditReport
from tests.audit.conftest import project

KERNEL = 'r"""\nextern "C" __global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }\n"""'


def _report(tree: Path | str, target: str) -> AuditReport:
    return audit(scan_tree(str(tree)), None, parse_target(target))


@pytest.mark.parametrize("name", ["real-keops", "real-pycuda", "real-spconv"])
def test_a_kernel_string_the_project_compiles_itself_is_a_port_on_rocm(name: str) -> None:
    report = _report(project(name), "rocm:gfx942")
    assert report.verdict.risk == "higher", report.verdict.reasons
    strings = [f for f in report.findings if f.rule == "cuda-kernel-string" and f.role == "core"]
    assert strings
    assert strings[0].risk == "higher"
    assert "own NVRTC, nvcc or driver-API" in strings[0].meaning


def _module(root: Path, body: str) -> Path:
    package = root / "kern"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "ops.py").write_text(body, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("compiler", "risk"),
    [
        (f"from pycuda.compiler import SourceModule\n\nMOD = SourceModule({KERNEL})\n", "higher"),
        (f"import cupy as cp\n\nMOD = cp.RawModule(code={KERNEL})\n", "moderate"),
        (
            f"from torch.utils.cpp_extension import load_inline\n\nMOD = load_inline('k', '', {KERNEL})\n",
            "moderate",
        ),
    ],
)
def test_the_twins_by_compiler(tmp_path: Path, compiler: str, risk: str) -> None:
    strings = [
        f
        for f in _report(_module(tmp_path, compiler), "rocm:gfx942").findings
        if f.rule == "cuda-kernel-string"
    ]
    assert strings
    assert strings[0].risk == risk


def test_a_string_module_compiled_by_cupy_kernels_elsewhere_is_cupys(tmp_path: Path) -> None:
    """cuCIM keeps its kernels' source in a module of strings and hands it to CuPy in the modules that
    import it: the string has CuPy's hiprtc on ROCm."""
    root = _module(tmp_path / "split", f"SOURCE = {KERNEL}\n")
    (root / "kern" / "jitter.py").write_text(
        "import cupy\nfrom .ops import SOURCE\n\nK = cupy.RawKernel(SOURCE, 'scale')\n", encoding="utf-8"
    )
    strings = [f for f in _report(root, "rocm:gfx942").findings if f.rule == "cuda-kernel-string"]
    assert strings
    assert strings[0].risk == "moderate"
    assert _report(project("real-cucim"), "rocm:gfx942").verdict.risk == "moderate"
    # Alone, the same module of strings compiles nothing the project shows: the project's own path.
    alone = _module(tmp_path / "alone", f"SOURCE = {KERNEL}\n")
    strings = [f for f in _report(alone, "rocm:gfx942").findings if f.rule == "cuda-kernel-string"]
    assert strings
    assert strings[0].risk == "higher"


VERSION_READ = """import torch


def cuda_version():
{guard}    parts = torch.version.cuda.split(".")
    return int(parts[0]), int(parts[1])
"""


@pytest.mark.parametrize(
    ("guard", "flagged"),
    [
        ("    if torch.version.cuda is None:\n        return None\n", False),
        ("    if not torch.version.cuda:\n        return None\n", False),
        ("    if torch.version.cuda is None:\n        raise RuntimeError('needs CUDA')\n", True),
        ("", True),
    ],
)
def test_a_cuda_version_read_after_a_return_when_it_is_unset_does_not_raise(
    tmp_path: Path, guard: str, flagged: bool
) -> None:
    """gefen 1.2.3's ``_torch_cuda_version`` returns None first where ``torch.version.cuda`` is None (XPU,
    MPS and ROCm builds): the ``.split`` after it runs only on a CUDA build. A guard that raises stops the
    program there instead, so the read keeps its finding."""
    source = VERSION_READ.format(guard=guard)
    line = source.splitlines().index('    parts = torch.version.cuda.split(".")') + 1
    findings = _report(_module(tmp_path, source), "xpu").findings
    reads = [f for f in findings if f.rule == "torch-cuda-api" and f.location == f"kern/ops.py:{line}"]
    assert bool(reads) is flagged


ENGINE = """import torch


class Engine(torch.nn.Module):
    def __init__(self, device=None, use_double_buffer=True):
        super().__init__()
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.is_cuda = self.device.type == "cuda" and torch.cuda.is_available()
        self.use_double_buffer = {flag}

    def forward(self, x):
        if self.use_double_buffer:
            torch.cuda.synchronize(self.device)
        return x.to(self.device)
"""


def test_a_self_attribute_bound_to_a_device_test_guards_like_the_test(tmp_path: Path) -> None:
    """stream-transformer 0.2.2 sets ``self.use_double_buffer = use_double_buffer and self.is_cuda`` in
    ``__init__`` and synchronizes CUDA streams only under it: off CUDA the layer-by-layer fallback runs."""
    assert (Path(project("real-stream-transformer")) / "stream_transformer" / "engine.py").is_file()
    for target in ("xpu", "mps"):
        report = _report(project("real-stream-transformer"), target)
        assert report.verdict.risk == "lower", (target, report.verdict.reasons)
    gated = _module(tmp_path / "gated", ENGINE.format(flag="use_double_buffer and self.is_cuda"))
    assert _report(gated, "xpu").verdict.risk == "lower"
    # Twin: the same switch taken from the caller alone is no device test; the call runs on XPU.
    plain = _module(tmp_path / "plain", ENGINE.format(flag="use_double_buffer"))
    assert _report(plain, "xpu").verdict.risk == "moderate"


def test_pycudwt_is_a_cuda_only_library_with_cpu_and_torch_stand_ins() -> None:
    """invisible-watermark-gpu 0.2.4 requires pycudwt (PDWT's CUDA wavelets) and imports it in four modules;
    with no row, its ROCm verdict came from the JAX import alone (lower)."""
    row = alternative_for_distribution("pycudwt")
    assert row is not None
    assert row is alternative_for_import("pycudwt")
    report = _report(project("real-invisible-watermark-gpu"), "rocm:gfx942")
    assert report.verdict.risk == "moderate"
    assert any(f.rule == "cuda-only-import" and "pycudwt" in f.meaning for f in report.findings)


CHECK = """import torch

_HAS_TRITON = True
_HAS_CUDA: bool = torch.cuda.is_available()
USE_KERNEL: bool = {flag}


def check_parity():
    if not USE_KERNEL:
        return {{"passed": False}}
    device = "cuda"
    return torch.randn(4, device=device)
"""


def test_a_module_flag_bound_to_a_device_test_guards_like_the_test(tmp_path: Path) -> None:
    """fade-kv 1.1.0's ``check_parity`` returns first unless ``USE_TRITON_KERNEL = _HAS_TRITON and
    _HAS_CUDA`` (``_HAS_CUDA = torch.cuda.is_available()``): its ``device = "cuda"`` runs only on CUDA."""
    for target in ("xpu", "mps"):
        report = _report(project("real-fade-kv"), target)
        assert report.verdict.risk == "lower", (target, report.verdict.reasons)
    assert (
        _report(
            _module(tmp_path / "flag", CHECK.format(flag="_HAS_TRITON and _HAS_CUDA")), "xpu"
        ).verdict.risk
        == "lower"
    )
    # Twin: a module flag that is no device test (an environment switch) guards nothing here.
    plain = CHECK.format(flag='__import__("os").environ.get("KERNEL") == "1"')
    assert _report(_module(tmp_path / "env", plain), "xpu").verdict.risk == "moderate"


def test_an_f_string_cuda_device_at_a_device_argument_is_a_hard_coded_cuda_device(tmp_path: Path) -> None:
    """chrombpnet-pytorch 0.0.3's interpret step runs ``model.to(f'cuda:{args.gpu[0]}')``: CUDA whatever the
    index."""
    findings = _report(project("real-chrombpnet-pytorch"), "mps").findings
    assert "chrombpnet/main.py:313" in [f.location for f in findings if f.rule == "hardcoded-cuda-device"]
    body = "import torch\n\n\ndef run(model, rank):\n    {line}\n    return model\n"
    placed = _module(tmp_path / "to", body.format(line="model.to(f'cuda:{rank}')"))
    assert [f.risk for f in _report(placed, "xpu").findings if f.rule == "hardcoded-cuda-device"] == [
        "moderate"
    ]
    # Twins: the same f-string in a message, and an f-string of another device type, place nothing.
    for line in ("print(f'cuda:{rank} is busy')", "model.to(f'xpu:{rank}')"):
        twin = _module(tmp_path / str(abs(hash(line))), body.format(line=line))
        assert not [f for f in _report(twin, "xpu").findings if f.rule == "hardcoded-cuda-device"]


SWITCH = """import torch

if torch.cuda.is_available():
    import cupy as cp
else:
    import {fallback}


def field(n):
    return cp.zeros((n, n))
"""


def test_a_cupy_or_numpy_array_switch_keeps_the_gpu_out_of_reach_on_xpu_and_mps(tmp_path: Path) -> None:
    """prprop3d 0.3.9 imports CuPy as ``cp`` when torch.cuda.is_available(), NumPy as ``cp`` otherwise: the
    code runs on the host off CUDA, and an Intel or Apple GPU has no way in (moderate, not a guarded extra).
    On ROCm, CuPy's ROCm build takes the same branch: the guard still lowers it there."""
    tree = project("real-prprop3d")
    assert _report(tree, "rocm:gfx942").verdict.risk == "lower"
    for target in ("xpu", "mps"):
        assert _report(tree, target).verdict.risk == "moderate"
    switch = _module(tmp_path / "switch", SWITCH.format(fallback="numpy as cp"))
    assert _report(switch, "xpu").verdict.risk == "moderate"
    # Twin: a fallback that is no NumPy alias (the module does without CuPy) stays a guarded extra.
    other = _module(tmp_path / "other", SWITCH.format(fallback="numpy as np"))
    assert _report(other, "xpu").verdict.risk == "lower"


def test_an_annotated_module_level_cuda_device_is_a_setting(tmp_path: Path) -> None:
    """reflectorch 1.5.1 sets ``DEFAULT_DEVICE: torch.device = torch.device('cuda')`` at module level, the
    default of a ``device`` parameter every caller may replace; the unannotated form was a setting already."""
    line = "reflectorch/data_generation/priors/no_constraints.py:40"
    assert (Path(project("real-reflectorch")) / line.split(":")[0]).is_file()
    findings = _report(project("real-reflectorch"), "xpu").findings
    assert line not in [f.location for f in findings if f.rule == "hardcoded-cuda-device"]
    for head in ("DEVICE: torch.device = ", "DEVICE = "):
        root = _module(tmp_path / str(len(head)), f"import torch\n\n{head}torch.device('cuda')\n")
        assert _report(root, "xpu").verdict.risk == "lower"
    # Twin: the same annotated assignment inside a function that then places a tensor there is a use.
    body = (
        "import torch\n\n\ndef make():\n    device: str = 'cuda'\n    return torch.zeros(2, device=device)\n"
    )
    assert _report(_module(tmp_path / "use", body), "xpu").verdict.risk == "moderate"


@pytest.mark.parametrize(
    ("check", "refused"),
    [
        ('device == "cuda" or device == "cpu"', True),
        ('device in ["cuda", "cpu"]', True),
        ('device == "cuda" or device == "cpu" or device == "xpu"', False),
        ('device == "cuda" or x == "cpu"', False),
    ],
)
def test_an_assert_spelling_its_device_menu_as_comparisons_is_a_gate(
    tmp_path: Path, check: str, refused: bool
) -> None:
    """phasetorch 0.2.0's bundled L-BFGS asserts ``device == "cuda" or device == "cpu"`` before every solve,
    the NLPR method's default optimiser: an Intel GPU is refused there, as by ``device in ["cuda", "cpu"]``.
    """
    body = f"import torch\n\n\ndef step(x, device):\n    assert {check}\n    return x.to(device)\n"
    findings = _report(_module(tmp_path, body), "xpu").findings
    assert bool([f for f in findings if f.rule == "device-choices"]) is refused
