"""Speed and memory of a model on the recorded inputs: timed replays, as torch.utils.benchmark does.

Replays are timed, not the user's block: the block may hold data loading, a loss, a backward, and
only the model's own calls are comparable across machines (record may count the block's own model
calls as one sample, hooks' time subtracted, when a replay confirms it: ``prior``, block_clock.py).
Each repetition replays every recorded top-level call once, under ``torch.no_grad()``,
synchronizing the device before the clock starts and after it stops; warm-up repetitions are run
first and dropped; the median and interquartile range are reported (torch.utils.benchmark's
Measurement reports the same pair). Peak memory is the device allocator's peak over one replay
(cuda and xpu; the CPU has no allocator peak to ask).

torch.utils.benchmark.Timer is not used itself because it times a statement string or a callable
in a loop with CUDA-only synchronization; xpu and mps need their own synchronize.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import torch

from envsnap.inprocess.bundle.model import Timing

Replay = Callable[[], Any]


def synchronize(device: str) -> None:
    """Wait for the device's queued work (a no-op on the CPU and meta)."""
    backend = getattr(torch, device, None) if device not in ("cpu", "meta") else None
    sync = getattr(backend, "synchronize", None)
    if sync is not None:
        sync()


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


MIN_TIMED_S = 0.05
"""Short replays are repeated until the fastest one times the count covers this (or MAX_REPEATS):
one sample of a sub-millisecond model on a loaded machine says more about the load than about the
model, and the first replays of a code path (no_grad after a block with grad) run cold."""
MAX_REPEATS = 50


AGREE = 0.15
"""A sample timed outside the replays (the record block's own forward, block_clock.py) counts only
when it is within this fraction of the first replay: then the two independent runs agree on the
time and the spread between them is known; otherwise it is dropped and replays alone decide."""


def time_replays(
    replay: Replay,
    device: str,
    *,
    repeats: int = 5,
    warmup: int = 1,
    reset: Callable[[], None] | None = None,
    prior: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Timing:
    """Median, spread and minimum of at least ``repeats`` synchronized samples after ``warmup``
    dropped replays (more while they add up to under MIN_TIMED_S). ``reset`` runs between
    replays, untimed (it puts the model's buffers back).

    ``prior``: the same work timed already (the record block's forward, hooks' time subtracted).
    It counts as one of the ``repeats`` samples when the first replay agrees with it within AGREE;
    at least one replay always runs (it is also the noise check), so the samples are never one.
    """
    with torch.no_grad():
        for _ in range(warmup):
            replay()
            if reset is not None:
                reset()
        synchronize(device)
        counted: list[float] = []
        samples: list[float] = []
        while (
            not samples
            or len(counted) + len(samples) < max(repeats, 1)
            or (
                min(counted + samples) * (len(counted) + len(samples)) < MIN_TIMED_S
                and len(counted) + len(samples) < MAX_REPEATS
            )
        ):
            synchronize(device)
            start = clock()
            replay()
            synchronize(device)
            samples.append(clock() - start)
            if reset is not None:
                reset()
            if prior is not None and len(samples) == 1 and abs(prior - samples[0]) <= AGREE * samples[0]:
                counted.append(prior)
    return _timing(counted + samples, block_samples=len(counted))


def pooled(first: Timing, second: Timing) -> Timing:
    """The samples of two timings of the same work as one (the block samples stay the first's)."""
    everything = [*first.samples_s, *second.samples_s]
    return _timing(everything, block_samples=first.block_samples) if everything else first


def _timing(samples: list[float], block_samples: int) -> Timing:
    """Median, spread, extremes of ``samples`` (not empty)."""
    return Timing(
        repeats=len(samples),
        median_s=statistics.median(samples),
        iqr_s=_quantile(samples, 0.75) - _quantile(samples, 0.25),
        min_s=min(samples),
        max_s=max(samples),
        samples_s=tuple(samples),
        block_samples=block_samples,
    )


def peak_memory(replay: Replay, device: str) -> int | None:
    """Peak allocated device memory over one replay, in bytes (None: the device can't say)."""
    backend = getattr(torch, device, None) if device in ("cuda", "xpu") else None
    if backend is None or not backend.is_available():
        return None
    synchronize(device)
    backend.reset_peak_memory_stats()
    with torch.no_grad():
        replay()
    synchronize(device)
    return int(backend.max_memory_allocated())
