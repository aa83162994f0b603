"""The verdict from checks, speed and placement (pure: no torch, no timing)."""

from __future__ import annotations

import pytest

from envsnap.inprocess.bundle.model import Placement
from envsnap.inprocess.record.sizes import parse_size
from envsnap.inprocess.tolerance import check_overrides, resolve
from envsnap.inprocess.verify.judge import first_divergence, verdict
from envsnap.inprocess.verify.report import ModuleCheck, SpeedMemory, Timings, ValueCheck, ValueMetrics

OK = ValueCheck(key="a#0", status="pass", metrics=ValueMetrics(max_abs=0.0, max_rel=0.0, rmse=0.0))


def _module(key: str, status: str, inputs: tuple[str, ...] = ()) -> ModuleCheck:
    check = ValueCheck(key=key, status=status)  # type: ignore[arg-type]
    return ModuleCheck(
        key=key,
        module=key.split("#")[0],
        call=0,
        status=status,  # type: ignore[arg-type]
        inputs_from=inputs,
        outputs=(check,),
    )


def _speed(
    ref: float, ref_iqr: float, tgt: float, tgt_iqr: float, memory: float | None = None
) -> SpeedMemory:
    return SpeedMemory(
        reference=Timings(median_s=ref, iqr_s=ref_iqr, repeats=5),
        target=Timings(median_s=tgt, iqr_s=tgt_iqr, repeats=5),
        latency_ratio=tgt / ref,
        memory_ratio=memory,
    )


@pytest.mark.parametrize(
    ("speed", "expected"),
    [
        (_speed(1.0, 0.1, 2.0, 0.1), "slow"),
        (_speed(1.0, 0.1, 1.4, 0.1), "pass"),
        (_speed(1.0, 0.5, 2.0, 1.5), "pass"),  # beyond the limit, but not beyond the spreads
        (_speed(1.0, 0.1, 1.0, 0.1, memory=2.0), "slow"),
    ],
    ids=["2x-slower", "within-limit", "within-spread", "memory"],
)
def test_slow_needs_the_ratio_beyond_the_limit_and_the_spreads(speed: SpeedMemory, expected: str) -> None:
    result, reasons, _ = verdict([_module("m#0", "pass")], [], [], speed, None, slow=1.5, memory_limit=1.5)
    assert result == expected
    if expected == "slow":
        assert reasons


def test_fail_outranks_fallback_which_outranks_slow() -> None:
    placement = Placement(expected_device="cuda", off_device_modules=("pos",), ops_off_device=2)
    slow = _speed(1.0, 0.0, 3.0, 0.0)
    modules = [_module("m#0", "pass")]
    assert verdict(modules, [], [], slow, placement, slow=1.5, memory_limit=None)[0] == "fallback"
    assert (
        verdict([_module("m#0", "fail")], [], [], slow, placement, slow=1.5, memory_limit=None)[0] == "fail"
    )
    assert verdict(modules, [], [], slow, None, slow=None, memory_limit=None)[0] == "pass"


def test_first_divergence_skips_calls_whose_inputs_already_failed() -> None:
    modules = [_module("a#0", "pass"), _module("b#0", "fail", ("a#0",)), _module("c#0", "fail", ("b#0",))]
    values = {m.key: m.outputs[0] for m in modules}
    found = first_divergence(modules, values)
    assert found is not None
    assert found.module == "b"
    # Born between modules: no failing call has all-passing inputs; the first failing one is named.
    orphan = [_module("x#0", "fail", ("y#0",)), _module("y#0", "fail")]
    values = {m.key: m.outputs[0] for m in orphan}
    named = first_divergence([orphan[0]], values)
    assert named is not None
    assert "already differed" in named.summary


def test_sizes_and_tolerance_overrides() -> None:
    assert parse_size("256MB") == 256_000_000
    assert parse_size("1GiB") == 2**30
    assert parse_size(0) == 0
    assert parse_size(None) == 0
    with pytest.raises(ValueError):
        parse_size("lots")
    overrides = check_overrides({"*": (0.1, 0.1), "*.attn": (1e-2, 1e-3)})
    assert resolve("enc.layers.0.attn", "float32", overrides) == ((1e-2, 1e-3), "override '*.attn'")
    assert resolve("enc.mlp", "bfloat16", None) == ((1.6e-2, 1e-5), "bfloat16 default")
    with pytest.raises(ValueError, match="rtol, atol"):
        check_overrides({"*": (1.0,)})
