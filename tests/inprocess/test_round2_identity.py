"""Issue 23, items 3 and 4: module identity by structure (wrappers, renames, another model) and
where a divergence is born (only traced inputs count as "matched").

Real CPU torch: ``torch.compile`` with the eager backend (no C compiler needed; the module tree and
the hooks are the real ones), ``nn.DataParallel`` with no GPUs (it calls ``.module`` directly), and a
user wrapper with the same ``.module`` layout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn

import envsnap
from envsnap.inprocess.verify.report import VerifyReport
from tests.inprocess.round2_models import (
    ConvNet,
    Wrapper,
    images,
    make_gpt,
    no_causal_mask,
    renamed_copy,
    tanh_gelu,
    tokens,
)

FAST = {"environment": "none", "repeats": 2, "warmup": 0}


def _record(path: Path, model: Any) -> Path:
    with envsnap.record(path, model=model, **FAST):  # type: ignore[arg-type]
        model(tokens())
    return path


def _verify(path: Path, model: Any, **options: object) -> VerifyReport:
    with envsnap.verify(path, model=model, environment="none", slow=None, **options) as v:  # type: ignore[arg-type]
        model(v.inputs)
    return v.report


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _record(tmp_path_factory.mktemp("plain") / "gpt", make_gpt())


@pytest.mark.filterwarnings("ignore:Using `torch.compile(module)` when there are global hooks")
def test_a_compiled_target_matches_a_plain_recording(plain: Path) -> None:
    report = _verify(plain, torch.compile(make_gpt(), backend="eager"))
    assert report.verdict == "pass", report.reasons
    assert not any(m.status == "missing" for m in report.modules)


@pytest.mark.filterwarnings("ignore:Using `torch.compile(module)` when there are global hooks")
def test_a_compiled_recording_matches_a_plain_target(tmp_path: Path) -> None:
    path = _record(tmp_path / "compiled", torch.compile(make_gpt(), backend="eager"))
    keys = {c.key for c in envsnap.verify(path).bundle.manifest.calls}
    assert "h.0.mlp.c_fc#0" in keys
    assert not any("_orig_mod" in k for k in keys)
    assert _verify(path, make_gpt()).verdict == "pass"


def test_ddp_style_wrappers_are_transparent(plain: Path, tmp_path: Path) -> None:
    assert _verify(plain, nn.DataParallel(make_gpt())).verdict == "pass"
    assert _verify(plain, Wrapper(make_gpt())).verdict == "pass"
    wrapped = _record(tmp_path / "wrapped", nn.DataParallel(make_gpt()))
    assert _verify(wrapped, make_gpt()).verdict == "pass"


def test_a_wrapped_target_still_names_the_changed_layer(plain: Path) -> None:
    report = _verify(plain, Wrapper(tanh_gelu(make_gpt(), 1)))
    assert report.verdict == "fail"
    assert report.first_divergence is not None
    assert report.first_divergence.module == "h.1.mlp.gelu"


def test_a_rename_refactor_matches_by_structure(plain: Path) -> None:
    report = _verify(plain, renamed_copy(make_gpt()))
    assert report.verdict == "pass", report.reasons
    renamed = renamed_copy(make_gpt())
    renamed.blocks[1].feed_forward.gelu = nn.GELU(approximate="tanh")  # type: ignore[union-attr]
    failing = _verify(plain, renamed)
    assert failing.first_divergence is not None
    assert failing.first_divergence.module == "h.1.mlp.gelu"


def test_an_explicit_rename_map_is_accepted(plain: Path) -> None:
    class Other(nn.Module):  # same tree, but LayerNorm affine off: shapes differ, no structural match
        def __init__(self) -> None:
            super().__init__()
            self.inner = make_gpt()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out: torch.Tensor = self.inner(x)
            return out

    report = _verify(plain, Other(), rename={"inner": ""})
    assert report.verdict == "pass", report.reasons


def test_a_bundle_from_another_model_says_so(plain: Path) -> None:
    net = ConvNet().eval()
    with envsnap.verify(plain, model=net, environment="none", slow=None) as v:
        net(images())
    assert v.report.verdict == "fail"
    assert any("different model" in r for r in v.report.reasons), v.report.reasons


def test_a_dropped_causal_mask_is_pinned_on_the_attention_not_its_projection(plain: Path) -> None:
    report = _verify(plain, no_causal_mask(make_gpt(), 0))
    div = report.first_divergence
    assert div is not None
    assert div.module == "h.0.attn", div.summary
    assert "inputs matched" not in div.summary


def test_a_sub_tolerance_origin_upstream_is_pointed_at() -> None:
    from envsnap.inprocess.verify import judge
    from envsnap.inprocess.verify.report import ModuleCheck, ValueCheck, ValueMetrics

    def check(key: str, status: str, max_abs: float) -> ValueCheck:
        metrics = ValueMetrics(max_abs=max_abs, max_rel=max_abs, rmse=max_abs, outside=int(status == "fail"))
        return ValueCheck(key=key, status=status, metrics=metrics)  # type: ignore[arg-type]

    upstream = check("norm#0", "pass", 4e-7)  # changed, but within tolerance
    downstream = check("head#0", "fail", 3e-3)  # amplified past it
    modules = [
        ModuleCheck(
            key="embed#0", module="embed", call=0, status="pass", outputs=(check("embed#0", "pass", 0.0),)
        ),
        ModuleCheck(key="norm#0", module="norm", call=0, status="pass", outputs=(upstream,)),
        ModuleCheck(
            key="head#0", module="head", call=0, status="fail", inputs_from=("norm#0",), outputs=(downstream,)
        ),
    ]
    values = {c.key: c for m in modules for c in m.outputs}
    div = judge.first_divergence(modules, values)
    assert div is not None
    assert div.module == "head"
    assert "from `norm#0` on" in div.summary


def test_timing_replays_go_through_a_known_wrapper(plain: Path) -> None:
    class DistributedDataParallel(nn.Module):  # DDP's layout and name; the real one needs a process group
        def __init__(self, module: nn.Module) -> None:
            super().__init__()
            self.module = module
            self.calls = 0

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            self.calls += 1
            out: torch.Tensor = self.module(x)
            return out

    ddp = DistributedDataParallel(make_gpt())
    report = _verify(plain, ddp)
    assert report.verdict == "pass", report.reasons
    assert ddp.calls > 1, "the timed replays bypassed the wrapper (a compiled model would be timed eager)"
