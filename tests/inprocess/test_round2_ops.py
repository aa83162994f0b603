"""Issue 23 round 2, item (a): the op-level origin. A TorchDispatchMode notes the signature of every
ATen op each module call's own code runs, on the reference (stored in the manifest) and on the target;
the first divergence then names the first op whose signature differs.

Real CPU torch, models built in code (round2_models.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from torch import nn

import envsnap
from envsnap.inprocess.op_log import MAX_OPS, first_difference, origin, signature
from envsnap.inprocess.verify.report import VerifyReport
from tests.inprocess.round2_models import ManyOps, functional_gpt, make_gpt, tanh_gelu, tokens

FAST = {"environment": "none", "repeats": 2, "warmup": 0}


def _record(path: Path, model: nn.Module, x: object) -> Path:
    with envsnap.record(path, model=model, **FAST):  # type: ignore[arg-type]
        model(x)
    return path


def _verify(path: Path, model: nn.Module) -> VerifyReport:
    with envsnap.verify(path, model=model, environment="none", slow=None) as v:
        model(v.inputs)
    return v.report


def _manifest_calls(path: Path) -> dict[str, Any]:
    manifest = json.loads((path / "manifest.json").read_text())
    return {call["key"]: call for call in manifest["calls"]}


def test_record_stores_each_calls_own_ops(tmp_path: Path) -> None:
    path = _record(tmp_path / "b", make_gpt(), tokens())
    calls = _manifest_calls(path)
    assert calls["h.1.mlp.gelu#0"]["ops"] == ["aten.gelu.default(f32)"]
    linear = calls["h.1.mlp.c_fc#0"]["ops"]
    assert any(str(op).startswith("aten.addmm") or str(op).startswith("aten.linear") for op in linear)
    # the block's own code holds its residual sums, not its children's ops
    block = calls["h.1#0"]["ops"]
    assert any(str(op).startswith("aten.add.Tensor") for op in block)
    assert not any("gelu" in str(op) for op in block)


def test_gelu_module_swap_names_the_op_and_its_argument(tmp_path: Path) -> None:
    path = _record(tmp_path / "b", make_gpt(), tokens())
    div = _verify(path, tanh_gelu(make_gpt(), 1)).first_divergence
    assert div is not None
    assert div.module == "h.1.mlp.gelu"
    assert "Op level: in `h.1.mlp.gelu`, op `aten.gelu.default` runs with other arguments" in div.summary
    assert "approximate='tanh'" in div.summary
    assert "(reference: `aten.gelu.default(f32)`)" in div.summary


def test_functional_gelu_in_mlp_code_is_named_with_its_module(tmp_path: Path) -> None:
    path = _record(tmp_path / "b", functional_gpt(), tokens())
    div = _verify(path, functional_gpt("tanh")).first_divergence
    assert div is not None
    assert div.module == "h.1.mlp"
    # no module wraps the GELU: the op log is what names it, in the MLP's own code
    assert "Op level: in `h.1.mlp`'s own code, op `aten.gelu.default`" in div.summary
    assert "approximate='tanh'" in div.summary
    # "inputs matched" is only said of traced (compared) values
    assert "while its inputs matched" not in div.summary


def test_same_ops_other_numbers_says_so(tmp_path: Path) -> None:
    path = _record(tmp_path / "b", make_gpt(), tokens())
    target = make_gpt()
    with torch.no_grad():
        target.get_parameter("h.1.mlp.c_fc.weight")[0, 0] += 0.5
    div = _verify(path, target).first_divergence
    assert div is not None
    assert div.module == "h.1.mlp.c_fc"
    assert "have the same signatures as on the reference" in div.summary


def test_op_log_is_bounded(tmp_path: Path) -> None:
    model = ManyOps()
    path = _record(tmp_path / "b", model, torch.zeros(3))
    ops = _manifest_calls(path)["ManyOps#0"]["ops"]
    assert isinstance(ops, list)
    assert len(ops) == MAX_OPS


def test_signature_redacts_and_truncates_arguments() -> None:
    secret = "hf_" + "a1B2c3D4e5" * 4
    sig = signature(torch.ops.aten.gelu.default, (torch.zeros(1),), {"approximate": secret}, torch.Tensor)
    assert secret not in sig
    assert sig.startswith("aten.gelu.default(f32, approximate=")
    long = signature(torch.ops.aten.gelu.default, (), {"approximate": "x" * 500}, torch.Tensor)
    assert len(long) < 120
    assert long.count("x") < 60


def test_first_difference_extra_missing_and_old_bundles() -> None:
    assert first_difference(["a(f32)"], ["a(f32)", "b(f32)"]) == (1, "an extra op `b`: `b(f32)`")
    assert first_difference(["a(f32)", "b(f32)"], ["a(f32)"]) == (1, "op `b` of the reference never runs")
    found = first_difference(["a(f32)", "b(f32)"], ["a(f32)", "c(f32)"])
    assert found is not None
    assert "runs where the reference ran `b`" in found[1]
    assert origin("m", (), ["a(f32)"], own_code=False) is None  # a bundle from before op logs


def test_inputs_matched_is_only_said_of_traced_inputs(tmp_path: Path) -> None:
    """A module called outside the model on a tensor made outside any module: its input was never
    compared, so the report must not claim it matched."""

    def run(head: nn.Module, model: nn.Module, x: torch.Tensor) -> None:
        model(x)
        head(torch.ones(2, 4) * 3)  # made outside any module: untraced

    torch.manual_seed(0)
    head = nn.Linear(4, 2)
    model = make_gpt()
    with envsnap.record(tmp_path / "b", model=model, **FAST):  # type: ignore[arg-type]
        run(head, model, tokens())
    with torch.no_grad():
        head.bias.add_(1.0)
    with envsnap.verify(tmp_path / "b", model=model, environment="none", slow=None) as v:
        run(head, model, v.inputs)
    div = v.report.first_divergence
    assert div is not None
    assert div.module == "Linear"
    assert "while its inputs matched" not in div.summary
    assert "while its 0 traced inputs matched the reference (1 tensor inputs were made outside" in div.summary
