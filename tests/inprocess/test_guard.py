"""``envsnap.guard`` on the real torch (CPU or CUDA build; no GPU), ``meta`` standing in for the accelerator.

The model lives on ``meta`` except one submodule, ``pos``, left on ``cpu`` (a positional table
built from ``torch.arange`` without a device, a classic). The guard must name exactly that module
and its ops, and the host→device copy of its output, and nothing else.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any, cast

import pytest
import torch
from torch import nn

import envsnap
from envsnap.inprocess.guard import Guard, OffDeviceError, is_fallback_warning
from envsnap.inprocess.guard.report import OUTSIDE, GuardReport
from envsnap.snapshot.yaml_text import load_yaml

MPS_FALLBACK_TEXT = (
    "The operator 'aten::nonzero' is not currently supported on the MPS backend and will fall back to run on "
    "the CPU. This may have performance implications. (Triggered internally at "
    "/Users/runner/work/pytorch/pytorch/pytorch/aten/src/ATen/mps/MPSFallback.mm:11.)"
)
"""PyTorch's MPS fallback warning, verbatim (aten/src/ATen/mps/MPSFallback.mm)."""
XPU_FALLBACK_TEXT = (
    "Aten Op fallback from XPU to CPU happends. This may have performance implications. If need debug the "
    "fallback ops please set environment variable `PYTORCH_DEBUG_XPU_FALLBACK=1`"
)
"""torch-xpu-ops' fallback warning, verbatim (typo included)."""

SEQ, WIDTH, BATCH = 5, 8, 2


class Positions(nn.Module):
    """Left on the CPU: builds its index with ``torch.arange`` (no device) and looks up its table."""

    def __init__(self) -> None:
        super().__init__()
        self.table = nn.Parameter(torch.randn(16, WIDTH))

    def forward(self, length: int) -> torch.Tensor:
        return nn.functional.embedding(torch.arange(length), self.table)


class Attention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.q = nn.Linear(WIDTH, WIDTH)
        self.k = nn.Linear(WIDTH, WIDTH)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = self.q(x) @ self.k(x).transpose(-1, -2)
        return torch.softmax(scores, dim=-1) @ x


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pos = Positions()
        self.layers = nn.ModuleList([Attention(), Attention()])
        self.head = nn.Linear(WIDTH, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.pos(x.shape[1]).to(x.device)
        for layer in self.layers:
            x = layer(x)
        out: torch.Tensor = self.head(x)
        return out


@pytest.fixture
def model() -> Model:
    torch.manual_seed(0)
    net = Model()
    net.layers.to("meta")
    net.head.to("meta")
    return net


@pytest.fixture
def x() -> torch.Tensor:
    return torch.empty(BATCH, SEQ, WIDTH, device="meta")


def _one_forward_report(model: Model, x: torch.Tensor) -> GuardReport:
    with envsnap.guard(device="meta") as g:
        model(x)
    return g.report


def test_names_exactly_the_module_left_on_the_cpu(model: Model, x: torch.Tensor) -> None:
    report = _one_forward_report(model, x)

    assert report.verdict == "off-device"
    off = [m for m in report.modules if m.off_device_ops]
    assert [(m.module, m.model) for m in off] == [("pos", "Model")]
    assert {(c.op, c.device, c.count) for c in off[0].off_device} == {
        ("aten::arange", "cpu", 1),
        ("aten::embedding", "cpu", 1),
    }
    assert report.ops_off_device == 2
    assert report.devices["cpu"] == 2
    # Everything else ran on meta, in the modules that own it.
    on_device = {m.module: m.devices for m in report.modules if not m.off_device_ops}
    assert set(on_device) == {
        "Model",
        "layers.0",
        "layers.0.q",
        "layers.0.k",
        "layers.1",
        "layers.1.q",
        "layers.1.k",
        "head",
    }
    assert all(set(devices) <= {"meta", "cpu→meta"} for devices in on_device.values())
    assert report.findings[0] == "`pos` ran 2 ops on cpu (aten::arange ×1, aten::embedding ×1)"


def test_reports_the_host_to_device_copy_with_its_size(model: Model, x: torch.Tensor) -> None:
    with envsnap.guard(device="meta") as g:
        for _ in range(3):
            model(x)
    (copy,) = g.report.copies
    assert (copy.op, copy.src, copy.dst, copy.direction) == ("aten::_to_copy", "cpu", "meta", "host→device")
    assert copy.count == 3
    assert copy.bytes == 3 * SEQ * WIDTH * 4  # three float32 [5, 8] tables
    assert copy.modules == ("Model",)
    assert "`aten::_to_copy` moved 480 B host→device (cpu→meta) 3 times (in `Model`)" in g.report.findings


def test_records_the_input_devices_of_a_mixed_op() -> None:
    # mm(cpu, meta) quietly returns a CPU tensor (on any build: no CUDA tensor is involved); only the
    # inputs tell.
    with envsnap.guard(device="meta") as g:
        out = torch.mm(torch.ones(2, 2), torch.ones(2, 2, device="meta"))
    assert out.device.type == "cpu"
    mixed = next(m for m in g.report.modules if m.module == OUTSIDE)
    assert mixed.devices.get("cpu+meta") == 1


def test_a_cpu_scalar_beside_device_tensors_is_not_off_device() -> None:
    with envsnap.guard(device="meta") as g:
        torch.ones(3, device="meta") * torch.tensor(2.0)
    assert g.report.ops_off_device == 1  # torch.tensor(2.0) itself is made on the CPU ...
    assert g.report.devices["meta"] == 2  # ... but the multiply with it counts as meta


def test_strict_raises_at_the_first_off_device_op_naming_the_module(model: Model, x: torch.Tensor) -> None:
    guard = envsnap.guard(device="meta", strict=True)

    def step() -> None:
        torch.zeros(2)  # outside any forward (a batch being built): collected, not raised
        model(x)

    with (
        pytest.raises(
            OffDeviceError, match=r"aten::arange ran on cpu in module `pos` of Model, expected meta"
        ),
        guard,
    ):
        step()
    assert guard.report.ops_off_device == 2
    assert {m.module for m in guard.report.modules if m.off_device_ops} == {OUTSIDE, "pos"}


def test_sampling_accounts_every_nth_forward_only(model: Model, x: torch.Tensor) -> None:
    per_forward = _one_forward_report(model, x).ops_total
    with envsnap.guard(device="meta", every=3) as g:
        for _ in range(7):
            model(x)
            torch.ones(2, device="meta").sum()  # outside any forward: not accounted when sampling
    report = g.report
    assert (report.forwards_seen, report.forwards_accounted) == (7, 3)
    assert report.ops_total == 3 * per_forward
    assert not [m for m in report.modules if m.module == OUTSIDE]
    assert report.ops_off_device == 3 * 2


def test_decorator_form_accumulates_over_calls(model: Model, x: torch.Tensor) -> None:
    guard = envsnap.guard(device="meta")

    @guard
    def step(batch: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = model(batch)
        return out

    step(x)
    step(x)
    assert step.guard is guard  # type: ignore[attr-defined]
    assert guard.report.forwards_seen == 2
    assert guard.report.ops_off_device == 4


def test_not_implemented_for_the_device_is_recorded_and_re_raised() -> None:
    class Stats(nn.Module):
        def forward(self, labels: torch.Tensor) -> torch.Tensor:
            return torch.bincount(labels)

    stats = Stats()
    guard = envsnap.guard(device="meta")
    with pytest.raises(NotImplementedError, match="aten::bincount"), guard:
        stats(torch.zeros(4, dtype=torch.long, device="meta"))
    (failed,) = guard.report.not_implemented
    assert (failed.op, failed.device, failed.module, failed.count) == ("aten::bincount", "meta", "Stats", 1)
    assert guard.report.verdict == "off-device"
    assert guard.report.findings[0].startswith("`aten::bincount` is not implemented for meta")


@pytest.fixture
def falls_back() -> Iterator[object]:
    """An op whose Meta kernel warns like PyTorch's MPS fallback: once per process (TORCH_WARN_ONCE)."""
    warned = [False]

    def kernel(x: torch.Tensor) -> torch.Tensor:
        if not warned[0]:
            warned[0] = True
            warnings.warn(MPS_FALLBACK_TEXT, UserWarning, stacklevel=2)
        return torch.empty_like(x)

    # torch.library is not annotated; Any keeps mypy --strict quiet without an ignore per call.
    library: Any = cast(Any, torch.library).Library("envsnap_guard_test", "FRAGMENT")
    library.define("nonzero_like(Tensor x) -> Tensor")
    library.impl("nonzero_like", kernel, "Meta")
    yield torch.ops.envsnap_guard_test.nonzero_like
    library._destroy()


def test_fallback_ops_are_counted_per_call_not_per_warning(falls_back: object) -> None:
    op = falls_back

    class Mixer(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return op(x)  # type: ignore[operator, no-any-return]

    mixer = Mixer()
    x = torch.empty(3, device="meta")

    def three_calls() -> None:
        for _ in range(3):
            mixer(x)

    with (
        pytest.warns(UserWarning, match="will fall back to run on the CPU"),
        envsnap.guard(device="meta") as g,
    ):
        three_calls()
    (warning,) = g.report.fallback_warnings
    assert warning.count == 1
    assert (warning.op, warning.module) == ("envsnap_guard_test::nonzero_like", "Mixer")
    (fallback,) = g.report.fallback_ops
    assert (fallback.op, fallback.device, fallback.count, fallback.modules) == (
        "envsnap_guard_test::nonzero_like",
        "meta",
        3,
        ("Mixer",),
    )
    assert g.report.verdict == "off-device"


def test_fallback_texts_of_both_backends_are_recognised() -> None:
    assert is_fallback_warning(MPS_FALLBACK_TEXT)
    assert is_fallback_warning(XPU_FALLBACK_TEXT)
    assert not is_fallback_warning("TypedStorage is deprecated")


def test_warnings_of_the_guarded_code_still_reach_the_user() -> None:
    with pytest.warns(DeprecationWarning, match="old API"), envsnap.guard(device="meta"):
        warnings.warn("old API", DeprecationWarning, stacklevel=1)


def test_all_on_device_says_so() -> None:
    with envsnap.guard(device="meta") as g:
        torch.ones(4, device="meta").relu()
    assert g.report.verdict == "on-device"
    assert g.report.findings == ("all 2 ops ran on meta",)


def test_report_as_yaml_and_as_a_table(model: Model, x: torch.Tensor) -> None:
    report = _one_forward_report(model, x)

    assert load_yaml(report.to_yaml(), GuardReport, "guard.yaml") == report
    table = str(report)
    assert table == report.table()
    assert table.splitlines()[0].startswith("envsnap guard: expected device meta · ")
    row = next(line for line in table.splitlines() if line.startswith("pos "))
    assert row.split() == ["pos", "2", "2", "cpu", "2"]


def test_guard_is_reentrant_and_resolves_the_device_lazily() -> None:
    guard = Guard()
    with guard, guard:
        torch.ones(1)
    usable = [
        kind
        for kind in ("cuda", "xpu", "mps")
        if getattr(torch, kind, None) and getattr(torch, kind).is_available()
    ]
    # Without a usable accelerator (any build on a machine without a GPU) the guard expects cpu and says why.
    assert guard.report.expected_device == (usable[0] if usable else "cpu")
    assert guard.report.expected_reason == (
        f"auto: torch.{usable[0]} is available" if usable else "auto: torch sees no accelerator"
    )
    assert guard.report.ops_total == 1
    with pytest.raises(ValueError, match="every must be 1 or more"):
        Guard(every=0)


def test_a_decorated_function_reaches_its_report_through_its_guard_attribute(
    model: Model, x: torch.Tensor
) -> None:
    @envsnap.guard(device="meta")
    def step(batch: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = model(batch)
        return out

    step(x)
    guard = cast(Guard, step.guard)  # type: ignore[attr-defined]
    assert guard.report.forwards_seen == 1
    assert {m.module for m in guard.report.modules if m.off_device_ops} == {"pos"}
    assert step.__name__ == "step"


def test_bare_decorator_guards_with_the_default_device() -> None:
    @envsnap.guard
    def double(t: torch.Tensor) -> torch.Tensor:
        return t * 2

    assert torch.equal(double(torch.ones(2)), torch.full((2,), 2.0))
    report = cast(Guard, double.guard).report  # type: ignore[attr-defined]
    assert report.ops_total == 1
    assert report.expected_reason is not None
    assert report.expected_reason.startswith("auto: ")


def test_table_header_uses_proper_plurals_and_ordinals() -> None:
    with envsnap.guard(device="meta") as g:
        torch.ones(4, device="meta")
    header = g.report.table().splitlines()[0]
    assert header == "envsnap guard: expected device meta · 1 op · on-device"
    sampled = GuardReport(
        report="envsnap-guard", schema=1, expected_device="meta", strict=False, every=2,
        forwards_seen=1, forwards_accounted=1, verdict="on-device", ops_total=3, ops_off_device=0,
        devices={"meta": 3},
    )  # fmt: skip
    assert sampled.table().splitlines()[0] == (
        "envsnap guard: expected device meta · 3 ops in 1 of 1 forward, every 2nd forward · on-device"
    )
