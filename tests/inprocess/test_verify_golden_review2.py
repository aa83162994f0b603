"""Second review of the verify-side float64 golden (verify/golden.py): a change made in a module's
*own code* after an ill-conditioned child whose output matched the reference. The model-wide
distances carry that child's float32 rounding (shared by target and reference, so it hides a change
smaller than it), and no module call is run alone there: the model's own call, a module's code after
its children, each of a module's several outputs. Each passed as ``golden-pass`` (the code before
the golden failed all of them); a 0.3% scale, ~10⁴× float32's rounding of one multiply. Twins: the
same models unchanged, the ill-conditioned child reordered (its rounding not shared), and a model
with no children reordered, still pass through the golden."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

from tests.inprocess.test_trial5 import IllNorm, SubVarNorm, gen, recorded, seeded, statuses, verify
from tests.inprocess.test_verify_golden import OffsetSum


class ScaledEnd(IllNorm):
    """IllNorm whose own code scales the head's output (the model's own call makes its output)."""

    def __init__(self, scale: float = 1.0, chunks: int = 1) -> None:
        super().__init__(chunks)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.head(self.act(self.norm(self.embed(x)))) * self.scale
        return out


class Outer(nn.Module):
    """ScaledEnd as a submodule: its output made in its own code, after its children."""

    def __init__(self, scale: float = 1.0, chunks: int = 1) -> None:
        super().__init__()
        self.block = ScaledEnd(scale, chunks)
        self.out = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.out(self.block(x))
        return out


class Pair(nn.Module):
    """Two outputs: the norm's, and the norm's scaled in its own code."""

    def __init__(self, scale: float, chunks: int) -> None:
        super().__init__()
        self.norm = SubVarNorm(256, chunks)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = self.norm(x)
        return y, y * self.scale


class PairNet(IllNorm):
    def __init__(self, scale: float = 1.0, chunks: int = 1) -> None:
        super().__init__()
        self.pair = Pair(scale, chunks)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = self.pair(self.embed(x))
        out: torch.Tensor = self.head(self.act(a + b))
        return out


CASES = [(ScaledEnd, "ScaledEnd#0"), (Outer, "block#0"), (PairNet, "pair#0/1")]


@pytest.mark.parametrize(("make", "key"), CASES)
def test_a_change_in_own_code_after_a_matched_ill_conditioned_child_fails_there(
    tmp_path: Path, make: type[nn.Module], key: str
) -> None:
    x = torch.randn(4, 6, 16, generator=gen())
    bundle = recorded(tmp_path, seeded(make), x)
    report = verify(bundle, seeded(lambda: make(scale=1.003)), x)
    assert report.verdict == "fail", report.limitations
    assert statuses(report)[key] == "fail"
    assert report.first_divergence is not None
    assert report.first_divergence.key == key.split("/")[0]  # the call
    assert "own code from values that all matched" in report.first_divergence.summary


@pytest.mark.parametrize(("make", "key"), CASES)
def test_twin_the_child_reordered_passes_through_the_golden(
    tmp_path: Path, make: type[nn.Module], key: str
) -> None:
    x = torch.randn(4, 6, 16, generator=gen())
    bundle = recorded(tmp_path, seeded(make), x)
    assert verify(bundle, seeded(make), x).verdict == "pass"
    report = verify(bundle, seeded(lambda: make(chunks=8)), x)
    assert report.verdict == "pass-with-limitations", report.reasons
    assert statuses(report)[key] == "golden-pass"


def test_twin_a_model_with_no_children_reordered_passes_through_the_golden(tmp_path: Path) -> None:
    x = torch.randn(16, 1 << 14, generator=gen())
    bundle = recorded(tmp_path, OffsetSum(), x)
    report = verify(bundle, OffsetSum(chunks=128), x)
    assert statuses(report) == {"OffsetSum#0": "golden-pass"}, report.reasons


# -- a module of two inputs, after a reordered ill-conditioned norm ----------------------------------


class GeluPlus(nn.Module):
    """gelu(a) + b/2: two tensor inputs, so it was never run on the reference's own inputs."""

    def __init__(self, approximate: str) -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return nn.functional.gelu(a, approximate=self.approximate) + 0.5 * b


class TwoInputs(IllNorm):
    def __init__(self, approximate: str = "none", chunks: int = 1) -> None:
        super().__init__(chunks)
        self.side = nn.Linear(16, 256)
        self.mix = GeluPlus(approximate)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.head(self.mix(self.norm(self.embed(x)), self.side(x)))
        return out


def test_an_activation_swapped_in_a_module_of_two_inputs_fails_on_it(tmp_path: Path) -> None:
    x = torch.randn(4, 6, 16, generator=gen())
    bundle = recorded(tmp_path, seeded(TwoInputs), x)
    report = verify(bundle, seeded(lambda: TwoInputs("tanh", chunks=8)), x)
    assert report.verdict == "fail", report.limitations
    assert statuses(report)["mix#0"] == "fail"
    assert report.first_divergence is not None
    assert report.first_divergence.key == "mix#0"
    assert "on the reference's own input" in report.first_divergence.summary


def test_twin_a_module_of_two_inputs_after_the_reordered_norm_passes(tmp_path: Path) -> None:
    x = torch.randn(4, 6, 16, generator=gen())
    bundle = recorded(tmp_path, seeded(TwoInputs), x)
    report = verify(bundle, seeded(lambda: TwoInputs(chunks=8)), x)
    assert report.verdict == "pass-with-limitations", report.reasons
    assert statuses(report)["mix#0"] == "golden-pass"


# -- a module of two outputs, after a reordered ill-conditioned norm ---------------------------------


class TwoOutputs(nn.Module):
    """(y·w, gelu(y)): two outputs, so it was never run alone."""

    def __init__(self, approximate: str) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(256))
        self.approximate = approximate

    def forward(self, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return y * self.weight, nn.functional.gelu(y, approximate=self.approximate)


class TwoOutputsNet(IllNorm):
    def __init__(self, approximate: str = "none", chunks: int = 1) -> None:
        super().__init__(chunks)
        self.pair = TwoOutputs(approximate)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = self.pair(self.norm(self.embed(x)))
        out: torch.Tensor = self.head(a + b)
        return out


def test_an_activation_swapped_in_one_of_two_outputs_fails_on_it(tmp_path: Path) -> None:
    x = torch.randn(4, 6, 16, generator=gen())
    bundle = recorded(tmp_path, seeded(TwoOutputsNet), x)
    report = verify(bundle, seeded(lambda: TwoOutputsNet("tanh", chunks=8)), x)
    assert report.verdict == "fail", report.limitations
    assert statuses(report)["pair#0/0"] == "golden-pass"
    assert statuses(report)["pair#0/1"] == "fail"
    assert report.first_divergence is not None
    assert report.first_divergence.key == "pair#0"
    assert "on the reference's own input" in report.first_divergence.summary


def test_twin_a_module_of_two_outputs_after_the_reordered_norm_passes(tmp_path: Path) -> None:
    x = torch.randn(4, 6, 16, generator=gen())
    bundle = recorded(tmp_path, seeded(TwoOutputsNet), x)
    report = verify(bundle, seeded(lambda: TwoOutputsNet(chunks=8)), x)
    assert report.verdict == "pass-with-limitations", report.reasons
    assert statuses(report)["pair#0/1"] == "golden-pass"
