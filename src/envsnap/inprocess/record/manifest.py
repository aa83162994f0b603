"""Turn a finished recording (sink, noise, golden) into the manifest's calls and taps, and tensors
into safetensors bytes."""

from __future__ import annotations

from typing import Any

from envsnap.inprocess.bundle.model import Call, Leaf, Tap
from envsnap.inprocess.record.measure import Extra
from envsnap.inprocess.record.sink import RecordSink


def tensor_bytes(tensors: dict[str, Any]) -> bytes:
    """safetensors serialization (never pickle)."""
    from safetensors.torch import save

    data: bytes = save(tensors)
    return data


def _leaf(key: str, sink: RecordSink, extra: Extra) -> Leaf:
    noise = extra.noise.get(key)
    golden = extra.golden
    return Leaf(
        key=key,
        stats=sink.stats[key],
        kept=key in sink.kept,
        golden=golden.stats.get(key) if golden is not None else None,
        golden_kept=golden is not None and key in golden.kept,
        reference_vs_golden_rmse=golden.error.get(key) if golden is not None else None,
        noise_max_abs=noise[0] if noise else None,
        noise_rmse=noise[1] if noise else None,
    )


def build_calls(sink: RecordSink, extra: Extra) -> tuple[Call, ...]:
    return tuple(
        Call(
            key=call.key,
            module=call.module,
            call=call.call,
            type=call.type,
            device=call.device,
            inputs_from=call.inputs_from,
            outputs=tuple(_leaf(key, sink, extra) for key in call.outputs if key in sink.stats),
            ops=tuple(call.ops),
        )
        for call in sink.calls
    )


def build_taps(
    taps: dict[str, list[tuple[int, list[str]]]], sink: RecordSink, extra: Extra
) -> tuple[Tap, ...]:
    return tuple(
        Tap(name=name, call=call, leaves=tuple(_leaf(key, sink, extra) for key in keys if key in sink.stats))
        for name, calls in taps.items()
        for call, keys in calls
    )
