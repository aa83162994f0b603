"""Fixes after measurement rounds 433-439 (#22, stop 29), each with the real files and a twin.

- prodigyopt 1.1.2 (round 433, the round's draw): the optimizer builds ``torch.zeros(2).cuda()`` only under
  ``if fsdp_in_use:`` and all-reduces it on the next line; a single-device run never enters that branch,
  yet the ``.cuda()`` made the device-following optimizer *moderate* on XPU and MPS (for *lower*). A branch
  whose body reaches a torch.distributed collective on every pass is multi-process code, as a function that
  does so already was.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.model import IS_CUDA_ASSERT, MULTI_PROCESS
from tests.audit.conftest import project

OPTIMIZER = """import torch
import torch.distributed as dist


def step(params, sharded):
    total = sum(float(p.grad.abs().sum()) for p in params)
    if sharded:
        buffer = torch.zeros(2).cuda()
        buffer[0] = total
        dist.all_reduce(buffer, op=dist.ReduceOp.SUM)
        total = float(buffer[0])
    return total
"""


def _cuda_calls(root: Path) -> list[tuple[str, int, bool]]:
    return [
        (s.file or "", s.line or 0, MULTI_PROCESS in s.detail)
        for s in scan_tree(str(root)).signals
        if s.kind == "device-hardcode"
    ]


def _tree(root: Path, text: str) -> Path:
    (root / "optim").mkdir(parents=True)
    (root / "optim" / "__init__.py").write_text(text, encoding="utf-8")
    return root


def test_a_cuda_buffer_in_a_branch_that_all_reduces_is_multi_process_code(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "dist", OPTIMIZER)
    assert _cuda_calls(tree) == [("optim/__init__.py", 8, True)]
    for target in ("xpu", "mps"):
        report = audit(scan_tree(str(tree)), None, parse_target(target))
        assert report.verdict.risk == "lower", (target, report.verdict.reasons)


def test_the_same_buffer_on_the_single_device_path_still_counts(tmp_path: Path) -> None:
    """Twins: no collective in the branch, or the collective only after a way out of it."""
    for name, text in (
        ("local", OPTIMIZER.replace("        dist.all_reduce(buffer, op=dist.ReduceOp.SUM)\n", "")),
        (
            "early-exit",
            OPTIMIZER.replace(
                "        dist.all_reduce(",
                "        if total == 0:\n            return 0.0\n        dist.all_reduce(",
            ),
        ),
    ):
        tree = _tree(tmp_path / name, text)
        assert [multi for _, _, multi in _cuda_calls(tree)] == [False], name
        report = audit(scan_tree(str(tree)), None, parse_target("mps"))
        assert report.verdict.risk == "moderate", (name, report.verdict.reasons)


def test_prodigy_is_device_following_off_cuda(tmp_path: Path) -> None:
    real = Path(project("real-prodigyopt"))
    for target in ("xpu", "mps"):
        assert audit(scan_tree(str(real)), None, parse_target(target)).verdict.risk == "lower", target
    # The real file with the all-reduce taken out of the FSDP branch: its .cuda() is on every path again.
    tree = tmp_path / "prodigy"
    shutil.copytree(real, tree)
    optimizer = tree / "prodigyopt" / "prodigy.py"
    text = optimizer.read_text(encoding="utf-8")
    reduce = "dist.all_reduce(dist_tensor, op=dist.ReduceOp.SUM)"
    assert text.count(reduce) == 1
    optimizer.write_text(text.replace(reduce, "pass"), encoding="utf-8")
    assert audit(scan_tree(str(tree)), None, parse_target("mps")).verdict.risk == "moderate"


PAYLOAD_CHECK = """import torch


def _raise_unsupported(message):
    raise TypeError(f"{message}: only CUDA tensors can be shared")


def validate(obj):
    if isinstance(obj, torch.Tensor):
        if not obj.is_cuda:
            _raise_unsupported("CPU tensors are not supported")
        return
    if any(not t.is_cuda for t in obj):
        raise TypeError("every tensor must be on CUDA")
"""


def _refusals(root: Path) -> list[int]:
    return [
        s.line or 0
        for s in scan_tree(str(root)).signals
        if s.kind == "cuda-api" and s.subject == IS_CUDA_ASSERT
    ]


def test_an_is_cuda_test_before_a_raise_refuses_other_devices_as_an_assert_does(tmp_path: Path) -> None:
    """shared-tensor 0.2.16 (round 434, *lower* for *higher* on MPS, two levels off): every payload is checked
    with ``if not obj.is_cuda: _raise_unsupported_payload(...)``, a module helper that always raises."""
    tree = _tree(tmp_path / "share", PAYLOAD_CHECK)
    assert _refusals(tree) == [10, 13]
    for target, risk in (("rocm:gfx942", "lower"), ("xpu", "moderate"), ("mps", "moderate")):
        report = audit(scan_tree(str(tree)), None, parse_target(target))
        assert report.verdict.risk == risk, (target, report.verdict.reasons)


def test_an_is_cuda_test_that_does_not_raise_is_a_dispatch(tmp_path: Path) -> None:
    """Twins: the helper warns instead of raising, the branch moves the tensor, or the test admits CPU too."""
    for name, text in (
        ("warns", PAYLOAD_CHECK.replace('    raise TypeError(f"{message}', '    print(f"{message}')),
        (
            "moves",
            PAYLOAD_CHECK.replace('_raise_unsupported("CPU tensors are not supported")', "obj = obj.cuda()"),
        ),
        ("admits-cpu", PAYLOAD_CHECK.replace("not t.is_cuda for", "not (t.is_cuda or t.is_cpu) for")),
    ):
        tree = _tree(tmp_path / name, text)
        expected = {"warns": [13], "moves": [13], "admits-cpu": [10]}[name]
        assert _refusals(tree) == expected, name


def test_shared_tensor_is_refused_off_cuda() -> None:
    real = Path(project("real-shared-tensor"))
    for target, risk in (("rocm:gfx942", "lower"), ("xpu", "moderate"), ("mps", "moderate")):
        assert audit(scan_tree(str(real)), None, parse_target(target)).verdict.risk == risk, target


SELECTOR = """import torch


def get_model(device="cuda"):
    if (
        (torch.backends.mps.is_available() and device == "mps")
        or (device == "cuda" or isinstance(device, int))
        and torch.cuda.is_available()
    ):
        device = torch.device(device)
    else:
        device = torch.device("cpu")
    return torch.nn.Linear(4, 4).to(device)
"""


def _choices(root: Path) -> list[str]:
    return [s.subject or "" for s in scan_tree(str(root)).signals if s.kind == "device-choices"]


def test_an_or_of_device_comparisons_keeps_those_devices_and_discards_the_rest(tmp_path: Path) -> None:
    """yolo5face 0.0.10's ``get_model`` (round 445, *lower* for *moderate* on XPU): 'mps' or 'cuda' kept,
    any other device silently replaced by the CPU."""
    tree = _tree(tmp_path / "faces", SELECTOR)
    assert _choices(tree) == ["mps, cuda, cpu"]
    report = audit(scan_tree(str(tree)), None, parse_target("xpu"))
    assert report.verdict.risk == "moderate", report.verdict.reasons
    assert any("kept only when it is MPS or CUDA" in f.meaning for f in report.findings)
    assert audit(scan_tree(str(tree)), None, parse_target("mps")).verdict.risk == "lower"


def test_an_or_that_negates_or_names_no_cuda_is_no_discard(tmp_path: Path) -> None:
    for name, text in (
        ("negated", SELECTOR.replace('(device == "cuda" or', '(not device == "cuda" or')),
        ("no-cuda", SELECTOR.replace('(device == "cuda" or', '(device == "npu" or')),
        ("keeps-other", SELECTOR.replace('device = torch.device("cpu")', 'device = torch.device("meta")')),
    ):
        assert _choices(_tree(tmp_path / name, text)) == [], name


def test_yolo5face_sends_xpu_to_the_cpu() -> None:
    real = Path(project("real-yolo5face"))
    assert audit(scan_tree(str(real)), None, parse_target("xpu")).verdict.risk == "moderate"


FLOW = """import torch
from torch import nn


class MaskedMLP(nn.Sequential):
    def __init__(self, adjacency, hidden=64):
        precedence = adjacency.double() @ adjacency.double().t() == adjacency.sum(dim=-1)
        super().__init__(nn.Linear(adjacency.shape[1], hidden), nn.ReLU())
        self.register_buffer("mask", precedence)


class Flow(nn.Module):
    def enable_fast_path(self, mode="reduce-overhead"):
        self._fast = torch.compile(self.forward, mode=mode)
        return self
"""


def _mps_findings(root: Path) -> list[tuple[str, str]]:
    report = audit(scan_tree(str(root)), None, parse_target("mps"))
    return sorted(
        (f.rule, f.risk) for f in report.findings if f.rule in ("float64-on-mps", "torch-compile-mps")
    )


def test_constructor_mask_algebra_and_an_enable_method_are_off_the_mps_path(tmp_path: Path) -> None:
    """zflows 0.6.2 (round 446) and zuko (round 148), *moderate* for *lower* on MPS: the float64 is the
    MADE mask worked out in ``__init__`` on the host, and torch.compile sits in ``enable_*`` fast paths."""
    tree = _tree(tmp_path / "flows", FLOW)
    assert _mps_findings(tree) == [("torch-compile-mps", "lower")]  # host float64 is no finding
    assert audit(scan_tree(str(tree)), None, parse_target("mps")).verdict.risk == "lower"


def test_device_math_in_a_constructor_and_compile_on_the_main_path_still_count(tmp_path: Path) -> None:
    # The compile rebinds the module's own forward: since stop 32 a compiled copy under a new name, with the
    # eager method still bound (`self._fast = torch.compile(self.forward)`), is a switch, not the main path.
    twin = (
        FLOW.replace("adjacency.double() @", "adjacency.to(self.device).double() @")
        .replace("def enable_fast_path(", "def forward_fast(")
        .replace("self._fast = torch.compile(", "self.forward = torch.compile(")
    )
    assert _mps_findings(_tree(tmp_path / "twin", twin)) == [
        ("float64-on-mps", "moderate"),
        ("torch-compile-mps", "moderate"),
    ]


def test_zflows_and_zuko_run_on_mps() -> None:
    for name in ("real-zflows", "real-zuko"):
        assert (
            audit(scan_tree(str(Path(project(name)))), None, parse_target("mps")).verdict.risk == "lower"
        ), name


HOST_COPY = """import torch


def aggregate(gramian, tau):
    g = gramian.to(device="cpu", dtype=torch.float64)
    t = tau.to("cpu", torch.float64)
    return (g @ t).to(device=gramian.device, dtype=gramian.dtype)
"""


def _float64_lines(root: Path) -> list[int]:
    report = audit(scan_tree(str(root)), None, parse_target("mps"))
    return sorted(int(f.location.rsplit(":", 1)[1]) for f in report.findings if f.rule == "float64-on-mps")


def test_a_float64_copy_made_on_the_cpu_stays_off_mps(tmp_path: Path) -> None:
    """torchjd 0.18 (round 455, the round's draw; *moderate* for *lower* on MPS) works its Gramians out in
    float64 on the CPU (``gramian.to(device="cpu", dtype=torch.float64)``) and casts the result back."""
    assert _float64_lines(_tree(tmp_path / "cpu", HOST_COPY)) == []
    twin = HOST_COPY.replace('device="cpu", dtype', "device=gramian.device, dtype").replace(
        '"cpu", torch', '"mps", torch'
    )
    assert _float64_lines(_tree(tmp_path / "device", twin)) == [5, 6]
    real = Path(project("real-torchjd"))
    assert audit(scan_tree(str(real)), None, parse_target("mps")).verdict.risk == "lower"


HIP_STUB = '''class CUDABackend:
    platform_name = "cuda"

    def compile_source(self, source, output_path):
        return nvcc(source, output_path)


class HIPBackend:
    """A placeholder: to implement HIP support, locate hipcc and compile with it."""

    platform_name = "hip"

    def compile_source(self, source, output_path):
        """Compile with hipcc."""
        raise NotImplementedError("HIP backend is not yet implemented.")
'''


def _rocm_ports(root: Path) -> list[int]:
    return [s.line or 0 for s in scan_tree(str(root)).signals if s.kind == "port" and s.subject == "rocm"]


def test_a_backend_class_that_only_raises_not_implemented_is_no_rocm_path(tmp_path: Path) -> None:
    """brainevent 0.2.1 (round 448, *lower* for *higher* on ROCm, two levels off): its ``HIPBackend`` names
    the 'hip' platform and raises NotImplementedError from every method; the GPU kernels are CUDA .cu."""
    assert _rocm_ports(_tree(tmp_path / "stub", HIP_STUB)) == []
    # The twin: the same class with a method that compiles.
    working = HIP_STUB.replace(
        '        raise NotImplementedError("HIP backend is not yet implemented.")',
        "        return hipcc(source)",
    )
    assert _rocm_ports(_tree(tmp_path / "working", working)) == [11]
    real = Path(project("real-brainevent"))
    assert audit(scan_tree(str(real)), None, parse_target("rocm:gfx942")).verdict.risk == "higher"


def test_a_gate_naming_a_variant_of_a_device_still_gates(tmp_path: Path) -> None:
    """lyroi 0.3 (round 462, the round's draw; *lower* for *moderate* on XPU): ``assert device in ['cpu',
    'cpu-max', 'gpu', 'mps']``, 'cpu-max' being its all-cores CPU; a variant name kept the list from reading
    as a menu of devices."""
    gate = (
        "def get_torch_device(device='gpu'):\n    assert device in ['cpu', 'cpu-max', 'gpu', 'mps'], device\n"
    )
    assert _choices(_tree(tmp_path / "gate", gate)) == ["cpu, cpu-max, gpu, mps"]
    # A list of other words (run modes) is still no device menu.
    modes = "def run(mode='fast'):\n    assert mode in ['fast', 'fast-max', 'slow'], mode\n"
    assert _choices(_tree(tmp_path / "modes", modes)) == []
    real = Path(project("real-lyroi"))
    assert audit(scan_tree(str(real)), None, parse_target("xpu")).verdict.risk == "moderate"


X64 = """import jax

jax.config.update("jax_enable_x64", True)
"""


def _x64(root: Path) -> list[tuple[str, int]]:
    return [(s.file or "", s.line or 0) for s in scan_tree(str(root)).signals if s.kind == "jax-x64"]


def test_jax_64_bit_mode_turned_on_at_import_is_no_apple_gpu(tmp_path: Path) -> None:
    """apax 0.14 (round 456, *moderate* for *higher* on MPS) turns jax_enable_x64 on in its ``__init__``:
    every array defaults to float64, which jax-metal does not run."""
    tree = _tree(tmp_path / "x64", X64)
    assert _x64(tree) == [("optim/__init__.py", 3)]
    report = audit(scan_tree(str(tree)), None, parse_target("mps"))
    assert [(f.rule, f.risk) for f in report.findings if f.rule == "jax-x64-on-mps"] == [
        ("jax-x64-on-mps", "higher")
    ]
    assert audit(scan_tree(str(tree)), None, parse_target("rocm:gfx942")).verdict.risk == "lower"
    real = Path(project("real-apax"))
    assert audit(scan_tree(str(real)), None, parse_target("mps")).verdict.risk == "higher"


def test_jax_64_bit_mode_off_optional_or_in_a_jax_backend_is_not(tmp_path: Path) -> None:
    """Twins: turned off; inside a try (cvxpylayers' optional JAX interface) or a function; in the JAX
    backend folder of a multi-framework project (phiml's ``backend/jax/``)."""
    for name, text in (
        ("off", X64.replace("True", "False")),
        (
            "try",
            "try:\n    import jax\n    jax.config.update('jax_enable_x64', True)\n"
            "except ImportError:\n    pass\n",
        ),
        ("function", "import jax\n\n\ndef enable():\n    jax.config.update('jax_enable_x64', True)\n"),
    ):
        assert _x64(_tree(tmp_path / name, text)) == [], name
    backend = tmp_path / "multi" / "lib" / "backend" / "jax"
    backend.mkdir(parents=True)
    (backend / "_jax_backend.py").write_text(X64, encoding="utf-8")
    assert _x64(tmp_path / "multi") == []
