"""``envsnap.record`` on this machine, ``envsnap.verify`` against it, with the real CPU build of torch.

The models are tiny but real (tests/inprocess/record_models.py); the changed layers are the ones a
migration really changes. Timing is measured but never asserted (``slow=None``): the verdicts
under test depend on numbers and placement only.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
import torch
from torch import nn

import envsnap
from envsnap.errors import BadInput
from envsnap.inprocess.bundle.check import check_bundle
from envsnap.inprocess.verify import Verifier
from envsnap.inprocess.verify.report import VerifyReport, load_report
from tests.factories import make_snapshot
from tests.inprocess.record_models import (
    WIDTH,
    make_input,
    make_net,
    with_autocast_block,
    with_layernorm_eps,
    with_tanh_gelu,
)

FAST = {"environment": "none", "repeats": 2, "warmup": 0}


def _record(path: Path, net: nn.Module | None = None, **options: object) -> Path:
    net = net or make_net()
    with envsnap.record(path, model=net, **{**FAST, **options}) as rec:  # type: ignore[arg-type]
        out = net(make_input())
        rec.tap("scores", out.softmax(-1))
    return path


def _verify(path: Path, net: nn.Module, **options: object) -> VerifyReport:
    with envsnap.verify(path, model=net, environment="none", slow=None, **options) as v:  # type: ignore[arg-type]
        out = net(v.inputs)
        v.tap("scores", out.softmax(-1))
    return v.report


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _record(tmp_path_factory.mktemp("rec") / "baseline.envsnap")


def test_same_model_same_machine_passes_with_zero_divergence(bundle: Path) -> None:
    report = _verify(bundle, make_net())

    assert report.verdict == "pass"
    assert report.first_divergence is None
    checks = [c for m in (*report.modules, *report.taps) for c in m.outputs]
    assert {c.status for c in checks} == {"pass"}
    assert all(c.metrics is not None and c.metrics.max_abs == 0.0 for c in checks)
    assert [m.key for m in report.modules][:3] == ["embed#0", "layers.0.norm#0", "layers.0.fc1#0"]
    assert report.modules[-1].key == "Net#0"
    assert {c.status for c in report.inputs} == {"pass"}
    # The reference's own run-to-run noise was measured (zero on this deterministic CPU path) and is reported.
    assert all(c.noise_max_abs == 0.0 for c in checks if not c.key.startswith("tap:"))
    assert report.reference_noise_max_abs == 0.0
    assert report.reference_noise_values == len(report.modules)
    assert "reference noise: max-abs 0 between two reference runs" in report.table()
    assert report.speed is not None
    assert report.speed.latency_ratio is not None


@pytest.mark.parametrize(
    ("change", "born_in"),
    [
        (lambda net: with_tanh_gelu(net, 1), "layers.1.act"),
        (lambda net: with_layernorm_eps(net, 2, 1e-2), "layers.2.norm"),
    ],
    ids=["tanh-gelu", "layernorm-eps"],
)
def test_first_divergence_names_exactly_the_changed_module(
    bundle: Path, change: object, born_in: str
) -> None:
    net = change(make_net())  # type: ignore[operator]
    report = _verify(bundle, net)

    assert report.verdict == "fail"
    assert report.first_divergence is not None
    assert report.first_divergence.module == born_in
    assert report.first_divergence.inputs, "the inputs it took are reported"
    assert all(check.status == "pass" for check in report.first_divergence.inputs)
    # Its successors fail too, but they are not named as the birth.
    failing = [m.module for m in report.modules if m.status == "fail"]
    assert failing[0] == born_in
    assert len(failing) > 1
    assert "first divergence" in report.table()


def test_a_bf16_autocast_block_is_compared_at_bf16_tolerance_and_named(bundle: Path) -> None:
    report = _verify(bundle, with_autocast_block(make_net(), 1))
    fc1 = next(c for m in report.modules if m.module == "layers.1.fc1" for c in m.outputs)
    assert fc1.cast == "autocast to bfloat16 (recorded float32)"
    assert fc1.metrics is not None
    assert fc1.metrics.max_abs > 0, "numbers were compared"
    assert (fc1.rtol, fc1.atol) == (1.6e-2, 1e-5)
    assert report.verdict == "pass-with-limitations", report.reasons
    assert any("autocast to bfloat16" in x and "`layers.1.fc1`" in x for x in report.limitations)
    # Downstream float32 values inherit the looser tolerance instead of failing at float32's.
    head = next(c for m in report.modules if m.module == "head" for c in m.outputs)
    assert head.tolerance_from.startswith("inherited from")


def test_tolerance_override_by_glob_accepts_the_change(bundle: Path) -> None:
    loose = {"*": (0.05, 0.05)}
    report = _verify(bundle, with_tanh_gelu(make_net(), 1), tolerances=loose)
    assert report.verdict == "pass"
    check = next(c for m in report.modules if m.module == "layers.1.act" for c in m.outputs)
    assert check.tolerance_from == "override '*'"
    assert check.metrics is not None
    assert check.metrics.max_abs > 0


def test_tensors_beyond_the_budget_are_stats_only_and_still_compared(tmp_path: Path) -> None:
    path = _record(tmp_path / "stats-only", keep=0)
    manifest = check_bundle(path).manifest
    kept = {leaf.key for call in manifest.calls for leaf in call.outputs if leaf.kept}
    assert kept == {"Net#0"}, "only the final output is kept in full"
    assert all(leaf.stats.sketch for call in manifest.calls for leaf in call.outputs)

    same = _verify(path, make_net())
    assert same.verdict == "pass-with-limitations"
    assert any("sketches" in line for line in same.limitations)
    sampled = [c for m in same.modules for c in m.outputs if c.basis == "sample"]
    assert sampled
    assert all(c.status == "pass" for c in sampled)

    changed = _verify(path, with_tanh_gelu(make_net(), 1))
    assert changed.first_divergence is not None
    assert changed.first_divergence.module == "layers.1.act"
    assert changed.first_divergence.outputs[0].basis == "sample"


class Positions(nn.Module):
    """Builds its index with ``torch.arange`` (no device): left on the CPU by a port."""

    def __init__(self) -> None:
        super().__init__()
        self.table = nn.Parameter(torch.randn(16, WIDTH))

    def forward(self, length: int) -> torch.Tensor:
        out: torch.Tensor = nn.functional.embedding(torch.arange(length), self.table)
        return out


class Positional(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pos = Positions()
        self.body = nn.Linear(WIDTH, WIDTH)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.body(x + self.pos(x.shape[1]).to(x.device))
        return out


def test_a_submodule_left_on_the_cpu_gives_fallback_naming_it(tmp_path: Path) -> None:
    torch.manual_seed(0)
    reference = Positional()
    path = tmp_path / "pos.envsnap"
    with envsnap.record(path, model=reference, **FAST) as rec:  # type: ignore[arg-type]
        reference(make_input())
    assert rec.manifest.placement is not None
    assert rec.manifest.placement.ops_off_device == 0

    target = Positional()
    target.load_state_dict(reference.state_dict())
    target.body.to("meta")  # the port moved everything but `pos`
    with envsnap.verify(path, model=target, device="meta", environment="none", slow=None) as v:
        assert v.inputs.device.type == "meta"
        target(v.inputs)
    report = v.report

    assert report.verdict == "fallback"
    assert report.placement is not None
    assert report.placement.off_device_modules == ("pos",)
    assert report.placement.cpu_modules == ("pos",)
    assert any("`pos`" in reason for reason in report.reasons)
    statuses = {m.module: m.status for m in report.modules}
    assert statuses["pos"] == "pass"  # it ran on the CPU, so its numbers are real, and right
    assert statuses["body"] == "skipped"  # meta tensors have no values


def test_golden_gate_passes_a_more_accurate_target(tmp_path: Path) -> None:
    path = _record(tmp_path / "golden", golden="cpu-fp64")
    manifest = check_bundle(path).manifest
    assert manifest.golden == "cpu-fp64"
    errors = [leaf.reference_vs_golden_rmse for call in manifest.calls for leaf in call.outputs]
    assert all(e is not None for e in errors)
    assert any(e for e in errors)

    class Fp64Linear(nn.Linear):
        """Computes in float64 and rounds once: closer to the golden than the fp32 reference."""

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return nn.functional.linear(x.double(), self.weight.double(), self.bias.double()).float()

    net = make_net()
    precise = Fp64Linear(4 * WIDTH, WIDTH)
    fc2: nn.Module = net.layers[0].fc2  # type: ignore[assignment]
    precise.load_state_dict(fc2.state_dict())
    net.layers[0].fc2 = precise
    # Taps have no golden (only model calls are replayed in float64): a looser tolerance for them.
    report = _verify(path, net, tolerances={"*": (0.0, 0.0), "tap:*": (1e-3, 1e-5)})

    statuses = {c.status for m in report.modules for c in m.outputs}
    assert "golden-pass" in statuses
    assert "fail" not in statuses
    assert report.verdict == "pass-with-limitations"
    assert any("fp64-golden gate" in line for line in report.limitations)


def test_report_round_trips_through_yaml_and_is_scrubbed(bundle: Path, tmp_path: Path) -> None:
    secret = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    net = make_net()
    path = tmp_path / "secret.envsnap"
    with envsnap.record(path, model=net, **FAST) as rec:  # type: ignore[arg-type]
        rec.tap(f"token={secret}", net(make_input()))
    with envsnap.verify(path, model=net, environment="none", slow=None) as v:
        v.tap(f"token={secret}", net(v.inputs))
    text = v.report.to_yaml()
    assert secret not in text
    assert secret not in v.report.table()
    again = load_report(text, "report.yaml")
    assert again.verdict == v.report.verdict
    assert again.modules == v.report.modules
    assert msgspec.json.encode(again) == msgspec.json.encode(v.report)


def test_environment_diff_is_attached(tmp_path: Path) -> None:
    old = make_snapshot()
    new = make_snapshot(meta=old.meta)
    torch_pkg = new.packages[0] if new.packages else None
    assert torch_pkg is not None
    rest = new.packages[1:] if new.packages else ()
    new = msgspec.structs.replace(
        new, packages=(msgspec.structs.replace(torch_pkg, version="2.14.0+cpu"), *rest)
    )
    net = make_net()
    path = tmp_path / "env.zip"
    with envsnap.record(path, model=net, **{**FAST, "environment": old}):  # type: ignore[arg-type]
        net(make_input())
    with envsnap.verify(path, model=net, environment=new, slow=None) as v:
        net(v.inputs)
    paths = {change.path for change in v.report.environment}
    assert any("torch" in p for p in paths)
    assert "2.14.0+cpu" in v.report.table()


def test_decorators_record_and_verify_every_call(tmp_path: Path) -> None:
    net = make_net()
    path = tmp_path / "deco.envsnap"

    @envsnap.record(path, model=net, **FAST)  # type: ignore[arg-type]
    def step(x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = net(x)
        return out

    step(make_input())
    verifier = envsnap.verify(path, model=net, environment="none", slow=None)

    @verifier
    def check() -> None:
        net(verifier.inputs)

    check()
    assert isinstance(verifier, Verifier)
    assert verifier.report.verdict == "pass"


def test_a_raising_block_writes_nothing(tmp_path: Path) -> None:
    net = make_net()
    path = tmp_path / "never"

    def block() -> None:
        with envsnap.record(path, model=net, **FAST):  # type: ignore[arg-type]
            net(make_input())
            _ = 1 / 0

    with pytest.raises(ZeroDivisionError):
        block()
    assert not path.exists()


def test_record_refuses_to_replace_a_folder_that_is_not_a_bundle(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    net = make_net()

    def block() -> None:
        with envsnap.record(tmp_path, model=net, **FAST):  # type: ignore[arg-type]
            net(make_input())

    with pytest.raises(BadInput):
        block()
    assert (tmp_path / "mine.txt").read_text() == "keep me"
