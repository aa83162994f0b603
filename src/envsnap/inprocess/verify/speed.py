"""Speed and memory of the target against the reference's measurements, side by side."""

from __future__ import annotations

from typing import Any

from envsnap.inprocess.bundle.model import Measurements, Timing
from envsnap.inprocess.verify.report import SpeedMemory, Timings

CONFIRM_REPEATS = 10
"""Replays added to a target timing that looks slow, before the verdict says so."""


def _looks_slow(target_s: float, reference_s: float, limit: float | None) -> bool:
    return limit is not None and reference_s > 0 and target_s > limit * reference_s


def _ratio(new: float | None, old: float | None) -> float | None:
    return new / old if new is not None and old else None


def _replay_calls(verifier: Any, fed: dict[str, Any]) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """The recorded calls that can be replayed faithfully, fed what the target was fed where it was
    fed something (its own dtype: a bf16 target replays its bf16 inputs), else the recorded inputs."""
    from envsnap.inprocess.value_tree import decode, opaque_types

    loaded = verifier._load()
    tensors = {**loaded.moved, **fed}
    calls = []
    for top in verifier.bundle.manifest.top_calls:
        nodes = [*top.args, *(node for _, node in top.kwargs)]
        if any(opaque_types(node) for node in nodes):
            continue
        args = tuple(decode(node, tensors, verifier.path) for node in top.args)
        kwargs = {key: decode(node, tensors, verifier.path) for key, node in top.kwargs}
        calls.append((args, kwargs))
    return calls


def compare_speed(verifier: Any, reference: Measurements | None, fed: dict[str, Any]) -> SpeedMemory | None:
    """Replay the recorded calls on the target (as record did) and set the numbers side by side.

    The replays leave the model's buffers and the RNG as the block left them; a replay that raises
    (a target that can't take the recorded inputs) is reported as a note, never as a traceback.
    """
    from envsnap.inprocess.measure import peak_memory, pooled, time_replays
    from envsnap.inprocess.module_names import timed, unwrap
    from envsnap.inprocess.record.measure import model_device, replayer
    from envsnap.inprocess.replay_state import restored

    if reference is None or reference.timing is None:
        return SpeedMemory(note="the bundle holds no timing to compare with")
    shown = _timings(reference.timing)
    if verifier.model is None or not verifier.measure:
        return SpeedMemory(reference=shown, note="target not timed (no model, or measure=False)")
    named = verifier._match.model if verifier._match is not None else unwrap(verifier.model)
    # Through a compile/DDP wrapper when that is all there is around the named model (timed as it
    # runs); the named model itself when a rename pointed inside a container.
    model = timed(verifier.model) if named is unwrap(verifier.model) else named
    calls = _replay_calls(verifier, fed)
    if not calls:
        return SpeedMemory(reference=shown, note="no recorded call can be replayed faithfully")
    device = model_device(named, verifier.device or "cpu")
    repeats = verifier.repeats or reference.timing.repeats
    try:
        with restored(named, None, params=False) as reset:
            timing = time_replays(replayer(model, calls), device, repeats=repeats, warmup=1, reset=reset)
            if _looks_slow(timing.min_s, reference.timing.min_s, verifier.slow):
                # A loaded machine stretches samples, and the fastest of a few can still be stretched:
                # before the target is called slow it is timed again, longer (a real slowdown stays).
                more = time_replays(
                    replayer(model, calls), device, repeats=CONFIRM_REPEATS, warmup=0, reset=reset
                )
                timing = pooled(timing, more)
            memory = peak_memory(replayer(model, calls), device)
    except Exception as err:  # the user's model on inputs it may not take: reported, not raised
        message = " ".join(str(err).split())[:160]
        return SpeedMemory(
            reference=shown,
            note=f"target not timed: replaying the recorded inputs raised {type(err).__name__}: {message}",
        )
    throughput = None
    if reference.batch_size and timing.median_s > 0:
        throughput = reference.batch_size * len(calls) / timing.median_s
    target = _timings(timing)
    note = None
    if device != reference.device:
        note = f"reference ran on {reference.device}, target on {device}"
    return SpeedMemory(
        reference=shown,
        target=target,
        latency_ratio=_ratio(timing.min_s, reference.timing.min_s),
        reference_throughput_per_s=reference.throughput_per_s,
        target_throughput_per_s=throughput,
        throughput_ratio=_ratio(throughput, reference.throughput_per_s),
        reference_peak_memory_bytes=reference.peak_memory_bytes,
        target_peak_memory_bytes=memory,
        memory_ratio=_ratio(memory, reference.peak_memory_bytes),
        note=note,
    )


def _timings(timing: Timing | None) -> Timings | None:
    """The figures of a timing the report shows side by side."""
    if timing is None:
        return None
    return Timings(median_s=timing.median_s, iqr_s=timing.iqr_s, min_s=timing.min_s, repeats=timing.repeats)
