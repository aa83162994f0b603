"""Review of the verify-side float64 golden (verify/golden.py): ways a float64 replay of the target's
model after the block is *not* what the target ran, each of which made a real change of the function
pass as ``golden-pass`` (the code before the golden failed all of them). Real CPU torch, tiny models
built in code; the change in each is a 3% weight change (or a changed scale in the module's own code)
that the elementwise test fails."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

import envsnap
from envsnap.inprocess.verify import golden
from envsnap.inprocess.verify.report import GOLDEN_NOT_ALIKE, VerifyReport
from tests.inprocess import test_verify_golden as ill  # its ill-conditioned sum

WIDTH = 32


def _linear(scale: float) -> nn.Linear:
    layer = nn.Linear(WIDTH, WIDTH)
    with torch.no_grad():
        layer.weight.copy_(torch.randn(WIDTH, WIDTH, generator=torch.Generator().manual_seed(0)) * scale)
        layer.bias.zero_()
    return layer


def _inputs() -> torch.Tensor:
    return torch.randn(4, WIDTH, generator=torch.Generator().manual_seed(1))


def _run(path: Path, make: Callable[[float], nn.Module]) -> VerifyReport:
    """Record ``make(1.0)``, verify ``make(1.03)`` (a real change), each from the same seed."""
    reference = make(1.0)
    torch.manual_seed(7)
    with envsnap.record(path, model=reference, environment="none", measure=False):
        reference(_inputs())
    target = make(1.03)
    torch.manual_seed(7)
    with envsnap.verify(path, model=target, environment="none", measure=False) as v:
        target(v.inputs)
    return v.report


def _statuses(report: VerifyReport) -> dict[str, str]:
    return {m.module: c.status for m in report.modules for c in m.outputs}


class AddsToItsInput(nn.Module):
    """``x += shift`` on the input tensor itself (an in-place positional add): after the block the
    recorded input ``v.inputs`` holds ``x + shift``, and a replay fed it computes something else."""

    def __init__(self, scale: float) -> None:
        super().__init__()
        self.proj = _linear(scale)
        self.register_buffer("shift", torch.full((WIDTH,), 3.0))

    shift: torch.Tensor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x += self.shift
        out: torch.Tensor = self.proj(x)
        return out


def test_a_model_that_writes_into_its_input_is_replayed_on_the_recorded_input(tmp_path: Path) -> None:
    report = _run(tmp_path / "b", AddsToItsInput)
    assert _statuses(report) == {"proj": "fail", "AddsToItsInput": "fail"}
    assert report.verdict == "fail"


class Counts(nn.Module):
    """State kept between calls outside buffers (a step counter, as a KV cache's position is): the
    copy made after the block starts where the block left it."""

    def __init__(self, scale: float) -> None:
        super().__init__()
        self.proj = _linear(1.0)
        self.scale = scale  # the change, in the module's own code: only this module's output shows it
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        out: torch.Tensor = self.proj(x) * self.scale * self.calls
        return out


class Drops(nn.Module):
    """Dropout in train mode, both sides seeded alike (their masks agree): the replay draws others."""

    def __init__(self, scale: float) -> None:
        super().__init__()
        self.proj = _linear(1.0)
        self.drop = nn.Dropout(0.5)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.drop(self.proj(x)) * self.scale
        return out


def test_state_kept_between_calls_is_no_golden(tmp_path: Path) -> None:
    report = _run(tmp_path / "b", Counts)
    assert _statuses(report) == {"proj": "pass", "Counts": "fail"}
    assert report.verdict == "fail"
    assert any("two float32 runs" in line and "1 failed" in line for line in report.limitations)


def test_randomness_in_the_model_is_no_golden(tmp_path: Path) -> None:
    report = _run(tmp_path / "b", Drops)
    assert _statuses(report) == {"proj": "pass", "drop": "pass", "Drops": "fail"}
    assert report.verdict == "fail"
    assert any("two float32 runs" in line for line in report.limitations)


def test_a_same_function_with_dropout_is_still_judged_by_the_elementwise_test(tmp_path: Path) -> None:
    """The guard costs nothing where nothing failed: seeded alike, the same model passes as before."""
    path = tmp_path / "b"
    reference = Drops(1.0)
    torch.manual_seed(7)
    with envsnap.record(path, model=reference, environment="none", measure=False):
        reference(_inputs())
    target = Drops(1.0)
    torch.manual_seed(7)
    with envsnap.verify(path, model=target, environment="none", measure=False) as v:
        target(v.inputs)
    assert set(_statuses(v.report).values()) == {"pass"}


class CastsInside(nn.Module):
    """Computes in bfloat16 whatever it is given (``x.bfloat16()`` ... ``.float()``): its float64 copy
    does too, so that run is no float64 golden for the value."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = _linear(1.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = (x.bfloat16() @ self.proj.weight.bfloat16().T).float()
        return out


def test_a_value_the_float64_copy_computes_in_a_lower_precision_is_not_judged() -> None:
    model = CastsInside()
    found = golden.replay(model, [((_inputs(),), {})], {"CastsInside#0": True}, None, None)
    assert not isinstance(found, str)
    gold, _, skipped, _ = found
    assert "CastsInside#0" not in gold
    assert skipped == {"CastsInside#0": golden.NOT_FLOAT64}


def test_the_replay_leaves_the_callers_inputs_alone() -> None:
    model = AddsToItsInput(1.0)
    x = _inputs()
    before = x.clone()
    found = golden.replay(model, [((x,), {})], {"proj#0": True}, None, None)
    assert not isinstance(found, str)
    assert torch.equal(x, before)


class Raises(nn.Module):
    def __init__(self, message: str) -> None:
        super().__init__()
        self.proj = _linear(1.0)
        self.message = message

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise RuntimeError(self.message)


def test_a_secret_cut_by_the_length_limit_is_still_redacted() -> None:
    """The message is shortened to one line of 160 characters: redacted before, not after, or the
    cut leaves a token's prefix that no longer looks like a token."""
    token = "hf_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    for message in ("x" * 130 + f" {token} tail", "y" * 135 + " https://bob:hunter2secret@host.example/x"):
        found = golden.replay(Raises(message), [((_inputs(),), {})], {"Raises#0": True}, None, None)
        assert isinstance(found, str)
        assert "A1b2C3" not in found, found
        assert "hunter2" not in found, found
        assert "\n" not in found


def test_a_step_written_through_data_is_not_judged_against_the_stepped_model(tmp_path: Path) -> None:
    """A hand-written SGD step (``p.data.add_(...)``) moves no version counter: the float64 run of the
    stepped model then made a change 10× the rounding error (``shift``) pass as rounding."""

    def step(model: nn.Module, x: torch.Tensor) -> None:
        model(x).sum().backward()
        for param in model.parameters():
            assert param.grad is not None
            param.data.add_(param.grad, alpha=-3e-3)

    path = tmp_path / "b"
    reference = ill.Model()
    with envsnap.record(path, model=reference, environment="none", measure=False):
        step(reference, ill._inputs())
    target = ill.Model(chunks=128, shift=20.0)
    with envsnap.verify(path, model=target, environment="none", measure=False) as v:
        step(target, v.inputs)
    assert ill._check(v.report, "total").status == "fail"
    assert any("training step" in line for line in v.report.limitations)


SETTINGS = {"offset": 0.0}
"""A setting the model reads at call time (a config object, a scheduler's value): module state that
neither versions nor buffers show."""


class ReadsASetting(nn.Module):
    def __init__(self, shift: float = 0.0, chunks: int = 1) -> None:
        super().__init__()
        self.total = ill.OffsetSum(chunks=chunks)
        self.shift = shift

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.total(x) + self.shift + SETTINGS["offset"]
        return out


def test_a_replay_far_from_both_sides_is_no_golden(tmp_path: Path) -> None:
    """The block changes a setting after the call: the float64 run is ~200 from both sides while
    float32 rounding is ~0.6, and a change 10× the rounding error (``shift``, in the module's own
    code) passed, with the verdict. One side must be within float32 rounding of the golden."""
    path = tmp_path / "b"
    reference = ReadsASetting()
    with envsnap.record(path, model=reference, environment="none", measure=False):
        reference(ill._inputs())
    target = ReadsASetting(shift=20.0, chunks=128)
    try:
        with envsnap.verify(path, model=target, environment="none", measure=False) as v:
            target(v.inputs)
            SETTINGS["offset"] = 200.0
    finally:
        SETTINGS["offset"] = 0.0
    statuses = _statuses(v.report)
    assert statuses == {"total": "golden-pass", "ReadsASetting": "fail"}
    assert v.report.verdict == "fail"
    check = next(c for m in v.report.modules if m.module == "ReadsASetting" for c in m.outputs)
    assert GOLDEN_NOT_ALIKE in (check.reason or "")
    assert v.report.first_divergence is not None
    assert "is not what ran in it" in v.report.first_divergence.summary


def test_the_weights_print_taken_on_every_verify_skips_what_has_no_plain_sum() -> None:
    """It runs when every verify block is entered: a lazy module's parameter (no values yet) or a
    float8 one (no sum kernel) must not make verify raise."""
    middle = nn.Linear(4, 2)
    low = nn.Linear(2, 2)
    low.weight = nn.Parameter(low.weight.detach().to(torch.float8_e4m3fn), requires_grad=False)
    printed = golden.weights_print(nn.Sequential(nn.LazyLinear(4), middle, low))
    assert len(printed) == 3  # nn.Linear(4, 2)'s weight and bias, the float8 layer's bias
    weight = middle.weight.detach()
    assert printed[0] == (float(weight.sum()), float(weight.norm()))
