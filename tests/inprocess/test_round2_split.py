"""Issue 23 round 2, item 11 (batch splits): a recorded batch run on the target in parts
(``verify(..., split=N)``) is put back together and compared as the recorded call.

Real CPU torch, models built in code (round2_models.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

import envsnap
from envsnap.inprocess.verify.report import VerifyReport
from tests.inprocess.round2_models import ConvNet, images, make_gpt, tanh_gelu, tokens

FAST = {"environment": "none", "repeats": 2, "warmup": 0}


def _record(path: Path, model: nn.Module, *batches: torch.Tensor) -> Path:
    with envsnap.record(path, model=model, **FAST):  # type: ignore[arg-type]
        for batch in batches:
            model(batch)
    return path


def _verify_split(path: Path, model: nn.Module, parts: int) -> VerifyReport:
    with envsnap.verify(path, model=model, environment="none", slow=None, split=parts, measure=False) as v:
        for args, _ in v.calls:
            for part in args[0].chunk(parts):
                model(part)
    return v.report


def test_a_batch_run_in_two_halves_passes(tmp_path: Path) -> None:
    path = _record(tmp_path / "b", make_gpt(), tokens(batch=4))
    report = _verify_split(path, make_gpt(), 2)
    assert report.verdict in ("pass", "pass-with-limitations"), report.reasons
    assert report.counts.get("fail", 0) == 0
    assert "extra" not in report.counts
    assert "missing" not in report.counts
    outputs = {c.key: c for m in report.modules for c in m.outputs}
    assert outputs["GPT#0"].shape == (4, 8, 64)  # compared as the whole recorded batch


def test_without_split_the_halves_do_not_line_up(tmp_path: Path) -> None:
    path = _record(tmp_path / "b", make_gpt(), tokens(batch=4))
    with envsnap.verify(path, model=make_gpt(), environment="none", slow=None) as v:
        for part in v.inputs.chunk(2):
            v.model(part)
    assert v.report.verdict == "fail"


def test_a_split_still_finds_the_changed_module(tmp_path: Path) -> None:
    path = _record(tmp_path / "b", make_gpt(), tokens(batch=4))
    div = _verify_split(path, tanh_gelu(make_gpt(), 1), 2).first_divergence
    assert div is not None
    assert div.module == "h.1.mlp.gelu"
    assert "approximate='tanh'" in div.summary  # the op-level origin works through the split


def test_several_recorded_calls_each_split_in_three(tmp_path: Path) -> None:
    torch.manual_seed(0)
    net = ConvNet().eval()
    path = _record(tmp_path / "b", net, images(batch=6), images(batch=6, seed=3))
    report = _verify_split(path, net, 3)
    assert report.counts.get("fail", 0) == 0
    assert "extra" not in report.counts
    assert "missing" not in report.counts
    keys = {m.key for m in report.modules}
    assert "ConvNet#1" in keys
    assert "ConvNet#2" not in keys


def test_a_missing_part_fails_by_shape(tmp_path: Path) -> None:
    path = _record(tmp_path / "b", make_gpt(), tokens(batch=4))
    with envsnap.verify(path, model=make_gpt(), environment="none", slow=None, split=2) as v:
        v.model(v.inputs[:2])  # the second half never runs
    assert v.report.verdict == "fail"
    outputs = {c.key: c for m in v.report.modules for c in m.outputs}
    assert "shape" in (outputs["GPT#0"].reason or "")


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_split_must_be_a_whole_number(tmp_path: Path, bad: object) -> None:
    with pytest.raises(ValueError, match="split must be a whole number"):  # before the bundle is read
        envsnap.verify(tmp_path / "none", model=make_gpt(), environment="none", split=bad)  # type: ignore[arg-type]
