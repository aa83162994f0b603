"""The reference judging itself: its run-to-run noise, and its error against a CPU float64 golden.

Noise: the recorded model calls are replayed once more, with the CPU random state each call
started with (so dropout in train mode replays the same mask), and every value compared with the
first run. What differs is nondeterminism of the reference itself (atomics, split-K reductions,
autotuning): a target can't be asked to be closer than that.

Golden (``golden="cpu-fp64"``): a deep copy of the model in float64 on the CPU replays the calls
with the inputs upcast losslessly (torchtitan's rule: generate low-precision inputs once, upcast
for the golden). Each value's RMSE against the golden is the reference's own error, the yardstick
of the dynamo/torchtitan gate (see tolerance.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from envsnap.inprocess.bundle.model import Stats
from envsnap.inprocess.capture import CallInfo, Capture
from envsnap.inprocess.cpu_copy import cpu_copy, upcast, why_not
from envsnap.inprocess.metrics import sketch_metrics, tensor_metrics
from envsnap.inprocess.record.sink import RecordSink
from envsnap.inprocess.replay_state import CallState, before_call
from envsnap.inprocess.tensor_stats import host_copy, keepable, nbytes, tensor_stats

Calls = list[tuple[int, tuple[Any, ...], dict[str, Any]]]
"""(top-level call index, args, kwargs): record_sink.Replay."""


def _distance(first: RecordSink, key: str, tensor: torch.Tensor) -> tuple[float, float] | None:
    """(max-abs, RMSE) of ``tensor`` against the first run's value ``key``; None if incomparable."""
    stats = first.stats.get(key)
    if stats is None or stats.shape != tuple(tensor.shape) or tensor.device.type == "meta":
        return None
    kept = first.kept.get(key)
    if kept is not None:
        metrics = tensor_metrics(tensor, kept, 0.0, 0.0)
    else:
        from envsnap.inprocess.metrics import sketch_of

        metrics = sketch_metrics(sketch_of(tensor), stats.sketch, 0.0, 0.0)
    return metrics.max_abs, metrics.rmse


@dataclass
class NoiseSink:
    first: RecordSink
    noise: dict[str, tuple[float, float]] = field(default_factory=dict)

    def value(self, key: str, tensor: torch.Tensor) -> None:
        if key.startswith("<input>"):
            return
        found = _distance(self.first, key, tensor)
        if found is not None:
            self.noise[key] = found

    def call_done(self, call: CallInfo) -> None:
        pass

    def top_start(self, index: int) -> None:
        if index < len(self.first.rng_states):
            torch.random.set_rng_state(self.first.rng_states[index])

    def top_call(
        self, index: int, key: str, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any
    ) -> None:
        pass


@dataclass
class GoldenSink:
    first: RecordSink
    keep_bytes: int
    stats: dict[str, Stats] = field(default_factory=dict)
    kept: dict[str, torch.Tensor] = field(default_factory=dict)
    error: dict[str, float] = field(default_factory=dict)
    spent: int = 0

    def value(self, key: str, tensor: torch.Tensor) -> None:
        if key.startswith("<input>"):
            return
        self.stats[key] = tensor_stats(tensor)
        found = _distance(self.first, key, tensor)
        if found is not None:
            self.error[key] = found[1]
        if keepable(tensor) and self.spent + nbytes(tensor) <= self.keep_bytes:
            self.kept[key] = host_copy(tensor)
            self.spent += nbytes(tensor)

    def call_done(self, call: CallInfo) -> None:
        pass

    def top_start(self, index: int) -> None:
        if index < len(self.first.rng_states):
            torch.random.set_rng_state(self.first.rng_states[index])

    def top_call(
        self, index: int, key: str, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any
    ) -> None:
        pass


def _replay(
    model: torch.nn.Module,
    sink: Any,
    calls: Calls,
    starts: dict[int, dict[str, int]],
    later: dict[int, CallState] | None = None,
) -> None:
    """Replay ``calls`` under the capture, each numbered as it was recorded (calls left out of the
    replay don't shift the keys of the ones after them)."""
    capture = Capture(sink, model)
    capture.install()
    try:
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            for index, args, kwargs in calls:
                capture.set_counts(index, starts.get(index, {}))
                if later:
                    before_call(model, later, index)
                model(*args, **kwargs)
    finally:
        capture.remove()


def measure_noise(
    model: torch.nn.Module, first: RecordSink, calls: Calls, later: dict[int, CallState] | None = None
) -> dict[str, tuple[float, float]]:
    """Per value key, (max-abs, RMSE) between a second run of the reference and the first."""
    sink = NoiseSink(first)
    _replay(model, sink, calls, first.starts, later)
    return sink.noise


def run_golden(
    model: torch.nn.Module,
    first: RecordSink,
    calls: Calls,
    keep_bytes: int,
    later: dict[int, CallState] | None = None,
) -> GoldenSink | str:
    """Replay on a CPU float64 copy of the model; the sink, or why it could not run."""
    problem = why_not(model, torch.float64)
    if problem is not None:
        return f"golden not run: {problem}"
    golden = cpu_copy(model, torch.float64)
    sink = GoldenSink(first, keep_bytes)
    upcast_calls = [(i, upcast(args), upcast(kwargs)) for i, args, kwargs in calls]
    _replay(golden, sink, upcast_calls, first.starts, later)
    return sink
