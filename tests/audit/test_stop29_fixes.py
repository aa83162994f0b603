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
