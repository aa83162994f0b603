"""Issue 23, overhead: the block's own forward as a timing sample, and the probes once per process.

The clock is injected (a counter the models advance), so what is asserted is the bookkeeping,
never a wall-clock duration. Real CPU torch, real hooks, real probes.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn

import envsnap
from envsnap.inprocess import machine
from envsnap.inprocess import measure as measure_module
from envsnap.inprocess.block_clock import BlockClock
from envsnap.inprocess.bundle.check import check_bundle
from envsnap.inprocess.capture import Capture
from envsnap.inprocess.measure import time_replays
from envsnap.inprocess.record.sink import RecordSink


class FakeClock:
    """Seconds that pass only when a model or a hook says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# --- time_replays: a prior sample counts only when the first replay confirms it -------------


def _replays(clock: FakeClock, seconds: float) -> tuple[list[int], Any]:
    runs: list[int] = []

    def replay() -> None:
        runs.append(1)
        clock.advance(seconds)

    return runs, replay


def test_a_confirmed_block_sample_saves_a_replay() -> None:
    clock = FakeClock()
    runs, replay = _replays(clock, 1.0)
    timing = time_replays(replay, "cpu", repeats=2, warmup=0, prior=1.1, clock=clock)
    assert len(runs) == 1
    assert timing.samples_s == pytest.approx((1.1, 1.0))
    assert (timing.repeats, timing.block_samples) == (2, 1)
    assert timing.min_s == pytest.approx(1.0)
    assert timing.iqr_s == pytest.approx(0.05)  # the spread between the two runs is kept


@pytest.mark.parametrize("prior", [1.5, 0.5])  # slower (a disturbed block) or faster: not the same run
def test_a_block_sample_the_replay_contradicts_is_dropped(prior: float) -> None:
    clock = FakeClock()
    runs, replay = _replays(clock, 1.0)
    timing = time_replays(replay, "cpu", repeats=2, warmup=0, prior=prior, clock=clock)
    assert len(runs) == 2
    assert timing.block_samples == 0
    assert timing.samples_s == pytest.approx((1.0, 1.0))


def test_without_a_block_sample_the_replays_alone_time_it() -> None:
    clock = FakeClock()
    runs, replay = _replays(clock, 1.0)
    timing = time_replays(replay, "cpu", repeats=2, warmup=0, clock=clock)
    assert (len(runs), timing.repeats, timing.block_samples) == (2, 2, 0)


def test_even_a_confirmed_sample_leaves_at_least_one_replay_and_the_short_run_rule() -> None:
    clock = FakeClock()
    runs, replay = _replays(clock, 0.003)  # short: repeated until 50 ms are covered
    timing = time_replays(replay, "cpu", repeats=1, warmup=0, prior=0.003, clock=clock)
    assert timing.block_samples == 1
    assert len(runs) == timing.repeats - 1 == 16


# --- BlockClock: the top-level call's time less the hooks' --------------------------------------


class Costly(nn.Module):
    """A module whose forward takes one (fake) second."""

    def __init__(self, clock: FakeClock, fail: list[bool] | None = None) -> None:
        super().__init__()
        self.clock = clock
        self.fail = fail if fail is not None else []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.clock.advance(1.0)
        if self.fail and self.fail.pop():
            raise ValueError("a bad batch")
        return x * 2


def _capture(clock: FakeClock, model: nn.Module, busy: Any = None) -> Capture:
    class CostlySink(RecordSink):
        def value(self, key: str, tensor: torch.Tensor) -> None:
            clock.advance(0.25)  # the hooks' own work: stats, host copies
            super().value(key, tensor)

    capture = Capture(CostlySink(keep_bytes=0), model)
    capture.clock = BlockClock("cpu", busy=busy, clock=clock)
    return capture


def _run(capture: Capture, model: nn.Module, *, grad: bool = False, calls: int = 1) -> None:
    capture.install()
    try:
        with torch.set_grad_enabled(grad):
            for _ in range(calls):
                with contextlib.suppress(ValueError):
                    model(torch.ones(2, 3))
    finally:
        capture.remove()


def test_the_block_sample_is_the_forward_without_the_hooks() -> None:
    clock = FakeClock()
    model = nn.Sequential(Costly(clock), Costly(clock))
    capture = _capture(clock, model)
    _run(capture, model)
    assert capture.clock is not None
    # Inside the top-level call: 2 s of forward, 2 × 0.25 s of the children's hooks.
    assert capture.clock.samples == {0: pytest.approx(2.0)}
    assert capture.clock.hooks_s == pytest.approx(4 * 0.25)  # + the input and the final output


def test_no_sample_from_a_call_with_grad_or_beside_the_probes() -> None:
    clock = FakeClock()
    model = nn.Sequential(Costly(clock))
    with_grad = _capture(clock, model)
    _run(with_grad, model, grad=True)
    busy = _capture(clock, model, busy=lambda: True)
    _run(busy, model)
    assert with_grad.clock is not None
    assert busy.clock is not None
    assert with_grad.clock.samples == {}
    assert busy.clock.samples == {}


def test_a_call_that_raised_leaves_no_sample_and_the_next_one_is_timed() -> None:
    clock = FakeClock()
    fail = [False, True]  # popped from the end: the first call raises
    model = nn.Sequential(Costly(clock, fail), Costly(clock))
    capture = _capture(clock, model)
    _run(capture, model, calls=2)
    assert capture.clock is not None
    assert capture.clock.samples == {0: pytest.approx(2.0)}


# --- record: the block's forward stands in for a timed replay when confirmed --------------------


class Counted(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        out: torch.Tensor = self.lin(x)
        return out


@pytest.mark.parametrize(("grad", "forwards", "block_samples"), [(False, 2, 1), (True, 3, 0)])
def test_record_counts_the_blocks_forward_as_a_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, grad: bool, forwards: int, block_samples: int
) -> None:
    # Agreement and the short-run rule are about time; switched off, the bookkeeping shows.
    monkeypatch.setattr(measure_module, "AGREE", float("inf"))
    monkeypatch.setattr(measure_module, "MIN_TIMED_S", 0.0)
    model = Counted()
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(0))
    with torch.set_grad_enabled(grad), envsnap.record(tmp_path / "b", model=model, environment="none"):
        model(x)
    # The block, then one timed replay (also the noise check) when the block's forward counts.
    assert model.calls == forwards
    measurements = check_bundle(tmp_path / "b").manifest.measurements
    assert measurements is not None
    assert measurements.timing is not None
    timing = measurements.timing
    assert (timing.repeats, timing.block_samples, len(timing.samples_s)) == (2, block_samples, 2)
    with envsnap.verify(tmp_path / "b", model=model, environment="none", slow=None) as v:
        model(v.inputs)
    assert v.report.verdict == "pass", v.report.reasons


def test_record_never_times_on_one_sample_by_default(tmp_path: Path) -> None:
    model = Counted()
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(0))
    with torch.no_grad(), envsnap.record(tmp_path / "b", model=model, environment="none"):
        model(x)
    measurements = check_bundle(tmp_path / "b").manifest.measurements
    assert measurements is not None
    assert measurements.timing is not None
    timing = measurements.timing
    assert timing.repeats >= 2
    assert len(timing.samples_s) == timing.repeats
    assert timing.block_samples in (0, 1)


# --- the environment probes: once per process while nothing they read changed -------------------


def test_the_snapshot_is_reused_until_the_environment_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(machine, "_CACHE", {})
    first = machine.snapshot_soon("fast")()
    again = machine.snapshot_soon("fast")
    assert not again.running()  # nothing runs beside the block
    assert again() is first
    monkeypatch.setenv("ENVSNAP_TEST_CHANGED", "1")
    changed = machine.snapshot_soon("fast")()
    assert changed is not None
    assert changed is not first
    assert machine.snapshot_soon("fast")() is changed


def test_a_record_with_a_reused_snapshot_still_stores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(machine, "_CACHE", {})
    model = Counted()
    x = torch.randn(4, 8)
    for name in ("one", "two"):
        with envsnap.record(tmp_path / name, model=model, environment="fast", measure=False):
            model(x)
    one, two = (check_bundle(tmp_path / name) for name in ("one", "two"))
    assert one.environment_text is not None
    assert one.environment_text == two.environment_text


def test_with_one_cpu_the_probes_wait_until_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing to overlap them with: beside the block they would only slow it and void its sample.
    monkeypatch.setattr(machine, "_CACHE", {})
    monkeypatch.setattr(machine, "usable_cpus", lambda: 1)
    pending = machine.snapshot_soon("fast")
    assert not pending.running()
    assert "fast" not in machine._CACHE  # not probed yet
    snapshot = pending()
    assert snapshot is not None
    assert machine._CACHE["fast"][1] is snapshot
    assert pending() is snapshot


def test_with_one_cpu_the_first_record_still_stores_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(machine, "_CACHE", {})
    monkeypatch.setattr(machine, "usable_cpus", lambda: 1)
    model = Counted()
    with torch.no_grad(), envsnap.record(tmp_path / "b", model=model, environment="fast"):
        model(torch.randn(4, 8))
    assert check_bundle(tmp_path / "b").environment_text is not None
