"""The replays ``envsnap.record`` runs after the block: noise, golden, timing, memory, throughput."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from envsnap.inprocess.bundle.model import Measurements, Placement
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


def replayer(model: Any, calls: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> Any:
    def replay() -> None:
        for args, kwargs in calls:
            model(*args, **kwargs)

    return replay


def measure_reference(recorder: Any, sink: RecordSink) -> Extra:
    """Everything measured by replaying the recorded calls (nothing without a model or calls)."""
    from envsnap.inprocess.measure import peak_memory, time_replays
    from envsnap.inprocess.record.reference_checks import measure_noise, run_golden

    extra = Extra()
    model = recorder.model
    if model is None or not sink.tops:
        extra.notes.append("no model calls recorded (model= not given, or not called): nothing to replay")
        return extra
    calls = sink.replay_calls()
    device = model_device(model, recorder.device or "cpu")
    if not recorder.measure:
        extra.measurements = Measurements(device=device, note="measure=False: no replays")
        return extra
    from envsnap.inprocess.guard import Guard
    from envsnap.inprocess.placement import summarize

    guard = Guard(recorder.device)
    with guard:  # placement from the noise replay: the same calls, accounted op by op
        extra.noise = measure_noise(model, sink, calls)
    extra.placement = summarize(guard.report, model)
    if recorder.golden is not None:
        golden = run_golden(model, sink, calls, max(recorder.keep_bytes - sink.spent, 0))
        if isinstance(golden, str):
            extra.notes.append(golden)
        else:
            extra.golden = golden
    note = None
    if device == "meta":
        note = "the model is on meta: timings measure dispatch only"
    timing = time_replays(replayer(model, calls), device, repeats=recorder.repeats, warmup=recorder.warmup)
    memory = peak_memory(replayer(model, calls), device)
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
