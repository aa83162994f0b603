"""The replays ``envsnap.record`` runs after the block: noise, golden, timing, memory, throughput."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from envsnap.inprocess.bundle.model import Measurements, Placement
from envsnap.inprocess.module_names import timed, unwrap
from envsnap.inprocess.record.reference_checks import GoldenSink
from envsnap.inprocess.record.sink import RecordSink


@dataclass
class Extra:
    measurements: Measurements | None = None
    noise: dict[str, tuple[float, float]] = field(default_factory=dict)
    golden: GoldenSink | None = None
    placement: Placement | None = None
    notes: list[str] = field(default_factory=list)


def model_device(model: Any, fallback: str) -> str:
    """The device type most of the model's parameters live on."""
    counts: dict[str, int] = {}
    for tensor in model.parameters():
        counts[tensor.device.type] = counts.get(tensor.device.type, 0) + tensor.numel()
    return max(counts, key=lambda k: counts[k]) if counts else fallback


def replayer(model: Any, calls: Sequence[tuple[Any, ...]], later: dict[int, Any] | None = None) -> Any:
    """A function replaying ``calls`` ((index, args, kwargs) or (args, kwargs)) on ``model``; with
    ``later`` (replay_state.ModelState.later), each call on the state it was recorded on."""
    from envsnap.inprocess.replay_state import before_call

    def replay() -> None:
        for call in calls:
            args, kwargs = call[-2], call[-1]
            if later and len(call) == 3:
                before_call(unwrap(model), later, call[0])
            model(*args, **kwargs)

    return replay


class FirstReplay:
    """Replays the recorded calls, each from its recorded RNG state, keeping the first replay's
    outputs (the noise check)."""

    def __init__(
        self,
        model: Any,
        calls: Sequence[tuple[Any, ...]],
        rng_states: list[Any],
        later: dict[int, Any] | None = None,
    ) -> None:
        self.model = model
        self.calls = calls
        self.rng_states = rng_states
        self.later = later or {}
        self.outputs: list[tuple[int, Any]] | None = None

    def __call__(self) -> None:
        import torch

        from envsnap.inprocess.replay_state import before_call

        first = self.outputs is None
        outputs = []
        for index, args, kwargs in self.calls:
            if index < len(self.rng_states):
                torch.random.set_rng_state(self.rng_states[index])
            if self.later:
                before_call(unwrap(self.model), self.later, index)
            out = self.model(*args, **kwargs)
            if first:
                outputs.append((index, out))
        if first:
            self.outputs = outputs


def _reproduced(sink: RecordSink, outputs: list[tuple[int, Any]]) -> bool:
    """Whether a replay's final outputs equal the recorded ones bit for bit."""
    import torch

    from envsnap.inprocess.tensor_stats import leaves

    for index, out in outputs:
        key = sink.top_keys.get(index)
        if key is None:
            return False
        for path, tensor in leaves(out, key):
            kept = sink.kept.get(path)
            if kept is None or kept.dtype != tensor.dtype or kept.shape != tensor.shape:
                return False
            if not torch.equal(kept, tensor.detach().to("cpu")):
                return False
    return True


def _stepped_note(stepped: list[str]) -> str:
    return (
        f"the block changed the model's parameters ({len(stepped)}, e.g. {stepped[0]}: a training step) "
        "before any snapshot of them could be taken (the model was not in train mode with grad enabled "
        "at its first call): not replayed for noise or golden"
    )


def _block_time(sink: RecordSink, calls: Sequence[tuple[Any, ...]]) -> float | None:
    """The block's own time for the replayed calls, when each of them was timed (grad disabled)."""
    indices = [call[0] for call in calls]
    if not indices or any(index not in sink.block_s for index in indices):
        return None
    return sum(sink.block_s[index] for index in indices)


def measure_reference(recorder: Any, sink: RecordSink) -> Extra:
    """Everything measured by replaying the recorded calls (nothing without a model or calls).

    Replays run on the state the recorded calls saw (parameters before a training step, buffers
    before train-mode updates), and leave the model, buffers and RNG as the block left them.
    """
    from envsnap.inprocess.measure import peak_memory, time_replays
    from envsnap.inprocess.record.reference_checks import measure_noise, run_golden
    from envsnap.inprocess.replay_state import restored

    extra = Extra()
    model = recorder.model
    if model is None or not sink.tops:
        extra.notes.append("no model calls recorded (model= not given, or not called): nothing to replay")
        return extra
    note = sink.unfaithful_note()
    if note:
        extra.notes.append(note)
    inner = unwrap(model)
    calls = sink.replay_calls()
    device = model_device(inner, recorder.device or "cpu")
    if not recorder.measure:
        extra.measurements = Measurements(device=device, note="measure=False: no replays")
        return extra
    if not calls:
        extra.measurements = Measurements(device=device, note="no model call can be replayed faithfully")
        return extra
    stepped = sink.state.stepped()
    faithful = not stepped or sink.state.start_has_params
    if not faithful:
        extra.notes.append(_stepped_note(stepped))
    with restored(inner, sink.state.start, params=bool(stepped)) as reset:
        # The timed replays double as the noise check: the first one's final outputs are compared
        # with the recorded ones. Bit for bit the same (the usual case): every value's noise is 0
        # and no hooked replay is needed; otherwise one hooked replay measures it value by value.
        later = sink.state.later
        replay = FirstReplay(timed(model), calls, sink.rng_states, later)
        timing = time_replays(
            replay,
            device,
            repeats=recorder.repeats,
            warmup=recorder.warmup,
            reset=reset,
            prior=_block_time(sink, calls),
        )
        if faithful and replay.outputs is not None and _reproduced(sink, replay.outputs):
            replayed = {index for index, _, _ in calls}
            extra.noise = {
                key: (0.0, 0.0)
                for index in replayed
                for key in sink.top_values.get(index, [])
                if key in sink.stats
            }
        elif faithful:
            reset()
            extra.noise = measure_noise(inner, sink, calls, later)
        reset()
        if recorder.golden is not None and faithful:
            golden = run_golden(inner, sink, calls, max(recorder.keep_bytes - sink.spent, 0), later)
            if isinstance(golden, str):
                extra.notes.append(golden)
            else:
                extra.golden = golden
        memory = peak_memory(replayer(timed(model), calls, later), device)
    note = "the model is on meta: timings measure dispatch only" if device == "meta" else None
    if memory is None:
        note = note or f"peak memory: {device} has no allocator peak to read"
    throughput = None
    if recorder.batch_size and timing.median_s > 0:
        throughput = recorder.batch_size * len(calls) / timing.median_s
    extra.measurements = Measurements(
        device=device,
        timing=timing,
        batch_size=recorder.batch_size,
        throughput_per_s=throughput,
        peak_memory_bytes=memory,
        note=note,
    )
    return extra
