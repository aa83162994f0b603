"""Issue 23, item 5: the float64 golden by default, made on the verify side (verify/golden.py).

An ill-conditioned sum (a large offset added to every term, then taken off the total) has a float32
rounding error far past the elementwise tolerance, so a benign change of summation order fails the
elementwise test; a float64 run of the model tells that from a change of the function. Real CPU
torch, models built in code.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

import envsnap
from envsnap.inprocess import cpu_copy
from envsnap.inprocess.verify.report import GOLDEN_CHANGED, GOLDEN_HERE, ValueCheck, VerifyReport

TERMS = 1 << 14
OFFSET = 1e3


class OffsetSum(nn.Module):
    """``sum(x·w + OFFSET) − OFFSET·TERMS``: the sum of x·w, with a float32 rounding error of
    ~eps·OFFSET·TERMS (~2 here) on totals of RMS ~130: ill-conditioned, as large-logit and
    variance-by-subtraction math is."""

    def __init__(self, chunks: int = 1, shift: float = 0.0, one: float = 0.0) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(TERMS, generator=torch.Generator().manual_seed(0)))
        self.chunks = chunks
        self.shift = shift
        self.one = one

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        terms = x * self.weight + OFFSET
        if self.chunks > 1:  # another summation order: the same function
            terms = terms.view(*terms.shape[:-1], self.chunks, -1).sum(-1)
        out = terms.sum(-1) - OFFSET * TERMS + self.shift
        if self.one:
            out = out + (torch.arange(out.numel()) == 3).to(out.dtype) * self.one
        return out


class Model(nn.Module):
    def __init__(self, **options: float) -> None:
        super().__init__()
        self.total = OffsetSum(**options)  # type: ignore[arg-type]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.total(x)
        return out


def _inputs() -> torch.Tensor:
    return torch.randn(16, TERMS, generator=torch.Generator().manual_seed(1))


def _record(path: Path, **options: object) -> Path:
    model = Model()
    with envsnap.record(path, model=model, environment="none", measure=False, **options):  # type: ignore[arg-type]
        model(_inputs())
    return path


def _verify(path: Path, target: nn.Module) -> VerifyReport:
    with envsnap.verify(path, model=target, environment="none", measure=False) as v:
        target(v.inputs)
    return v.report


def _check(report: VerifyReport, module: str) -> ValueCheck:
    return next(c for m in report.modules if m.module == module for c in m.outputs)


def test_benign_reordering_of_ill_conditioned_math_passes_through_the_golden_by_default(
    tmp_path: Path,
) -> None:
    path = _record(tmp_path / "b")
    report = _verify(path, Model(chunks=128))
    check = _check(report, "total")
    assert check.status == "golden-pass", check.reason
    assert check.metrics is not None
    assert check.metrics.outside > 0  # the elementwise test failed
    assert GOLDEN_HERE in (check.reason or "")
    assert report.verdict == "pass-with-limitations"
    assert any("fp64-golden gate" in line for line in report.limitations)


def test_a_sketch_only_value_is_judged_on_its_sketch(tmp_path: Path) -> None:
    path = _record(tmp_path / "b", keep=0)  # `total` on its sketch; the model's output kept in full
    report = _verify(path, Model(chunks=128))
    inner, outer = _check(report, "total"), _check(report, "Model")
    assert inner.basis == "sample"
    assert outer.basis == "full"
    assert inner.status == outer.status == "golden-pass"


@pytest.mark.parametrize(
    "change",
    [
        {"chunks": 128, "shift": 20.0},  # ten times the rounding error, on every total
        {"chunks": 128, "one": 40.0},  # one total of sixteen
    ],
    ids=["every-value", "one-value"],
)
def test_a_change_of_the_function_still_fails_and_says_so(tmp_path: Path, change: dict[str, float]) -> None:
    path = _record(tmp_path / "b")
    report = _verify(path, Model(**change))
    check = _check(report, "total")
    assert check.status == "fail"
    assert GOLDEN_CHANGED in (check.reason or "")
    assert report.verdict == "fail"
    assert report.first_divergence is not None
    assert "sides with the target" in report.first_divergence.summary


def test_a_change_below_the_rounding_error_passes_as_rounding(tmp_path: Path) -> None:
    """0.05 on totals whose float32 rounding error is ~2: no float32 run can tell them apart (the
    record-side golden passes it as well)."""
    path = _record(tmp_path / "b")
    assert _check(_verify(path, Model(chunks=128, shift=0.05)), "total").status == "golden-pass"


def test_the_golden_leaves_the_model_and_the_random_state_as_the_block_left_them(tmp_path: Path) -> None:
    path = _record(tmp_path / "b")
    target = Model(chunks=128)
    with envsnap.verify(path, model=target, environment="none", measure=False) as v:
        target(v.inputs)
        weights = {name: p.detach().clone() for name, p in target.named_parameters()}
        rng = torch.random.get_rng_state()
        devices = {p.device.type for p in target.parameters()} | {p.dtype for p in target.parameters()}
    assert _check(v.report, "total").status == "golden-pass"
    assert all(torch.equal(p, weights[name]) for name, p in target.named_parameters())
    assert torch.equal(torch.random.get_rng_state(), rng)
    assert {p.device.type for p in target.parameters()} | {p.dtype for p in target.parameters()} == devices


def test_a_training_step_is_not_judged_against_the_stepped_model(tmp_path: Path) -> None:
    """After a step the model is not the one that ran: its float64 run is no golden (a bug as large
    as the step would pass). The values stay failed, and the report says why."""
    model = Model()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    path = tmp_path / "step"
    with envsnap.record(path, model=model, environment="none", measure=False):
        model(_inputs()).sum().backward()
        optimizer.step()
    target = Model(chunks=128)
    step = torch.optim.SGD(target.parameters(), lr=1e-3)
    with envsnap.verify(path, model=target, environment="none", measure=False) as v:
        target(v.inputs).sum().backward()
        step.step()
    assert _check(v.report, "total").status == "fail"
    assert any(
        "not judged against a float64 run" in line and "training step" in line
        for line in v.report.limitations
    )


def test_a_model_too_large_for_the_memory_available_is_not_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _record(tmp_path / "b")
    monkeypatch.setattr(cpu_copy, "MEMORY_SHARE", 0.0)
    report = _verify(path, Model(chunks=128))
    assert _check(report, "total").status == "fail"
    assert any("float64 copy of the model takes" in line for line in report.limitations)


def test_cpu_copy_keeps_ties_and_integers_and_leaves_the_model_alone() -> None:
    class Tied(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(8, 4)
            self.head = nn.Linear(4, 8, bias=False)
            self.head.weight = self.embed.weight
            self.norm = nn.BatchNorm1d(4)

    model = Tied()
    copied = cpu_copy.cpu_copy(model, torch.float64)
    assert copied.head.weight is copied.embed.weight  # type: ignore[union-attr]
    assert copied.embed.weight.dtype == torch.float64  # type: ignore[union-attr]
    assert copied.norm.num_batches_tracked.dtype == torch.long  # type: ignore[union-attr]
    assert not copied.embed.weight.requires_grad  # type: ignore[union-attr]
    assert model.embed.weight.dtype == torch.float32
    assert model.embed.weight.requires_grad
    assert torch.equal(copied.embed.weight.float(), model.embed.weight.detach())  # type: ignore[union-attr, arg-type]
    assert cpu_copy.copy_bytes(model, torch.float64) == (8 * 4 + 4 + 4 + 4 + 4) * 8 + 8


def test_a_meta_model_is_refused_with_the_reason() -> None:
    assert cpu_copy.why_not(nn.Linear(2, 2, device="meta"), torch.float64) == (
        "the model has meta tensors (no values to copy)"
    )


def test_a_model_that_cannot_run_on_the_cpu_is_said_not_judged(tmp_path: Path) -> None:
    class CudaOnly(Model):
        """Runs where it was built, refuses a CPU copy (a custom kernel with no CPU path)."""

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if self.total.weight.dtype == torch.float64:
                raise RuntimeError("no CPU kernel for this op\x1b[31m")
            return super().forward(x)

    path = _record(tmp_path / "b")
    report = _verify(path, CudaOnly(chunks=128))
    assert _check(report, "total").status == "fail"
    said = [line for line in report.limitations if "not judged against a float64 run" in line]
    assert len(said) == 1
    assert "RuntimeError: no CPU kernel for this op" in said[0]
    assert "\x1b" not in report.table()
