"""Speed and memory of the target against the reference's measurements, side by side."""

from __future__ import annotations

from typing import Any

from envsnap.inprocess.bundle.model import Measurements
from envsnap.inprocess.verify.report import SpeedMemory, Timings


def _ratio(new: float | None, old: float | None) -> float | None:
    return new / old if new is not None and old else None


def compare_speed(verifier: Any, reference: Measurements | None) -> SpeedMemory | None:
    """Replay the recorded calls on the target (as record did) and set the numbers side by side."""
    from envsnap.inprocess.measure import peak_memory, time_replays
    from envsnap.inprocess.record.measure import model_device, replayer

    if reference is None or reference.timing is None:
        return SpeedMemory(note="the bundle holds no timing to compare with")
    if verifier.model is None or not verifier.measure:
        return SpeedMemory(
            reference=_timings(reference), note="target not timed (no model, or measure=False)"
        )
    calls = verifier.calls
    device = model_device(verifier.model, verifier.device or "cpu")
    repeats = verifier.repeats or reference.timing.repeats
    timing = time_replays(replayer(verifier.model, calls), device, repeats=repeats, warmup=1)
    memory = peak_memory(replayer(verifier.model, calls), device)
    throughput = None
    if reference.batch_size and timing.median_s > 0:
        throughput = reference.batch_size * len(calls) / timing.median_s
    target = Timings(median_s=timing.median_s, iqr_s=timing.iqr_s, repeats=timing.repeats)
    note = None
    if device != reference.device:
        note = f"reference ran on {reference.device}, target on {device}"
    return SpeedMemory(
        reference=_timings(reference),
        target=target,
        latency_ratio=_ratio(timing.median_s, reference.timing.median_s),
        reference_throughput_per_s=reference.throughput_per_s,
        target_throughput_per_s=throughput,
        throughput_ratio=_ratio(throughput, reference.throughput_per_s),
        reference_peak_memory_bytes=reference.peak_memory_bytes,
        target_peak_memory_bytes=memory,
        memory_ratio=_ratio(memory, reference.peak_memory_bytes),
        note=note,
    )


def _timings(reference: Measurements) -> Timings | None:
    timing = reference.timing
    return (
        None
        if timing is None
        else Timings(median_s=timing.median_s, iqr_s=timing.iqr_s, repeats=timing.repeats)
    )
