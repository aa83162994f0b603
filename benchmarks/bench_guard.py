"""Overhead of ``envsnap.guard`` on a small transformer block, as ratios against the plain forward.

Baseline: the same block, same input (batch 32), training-mode forward passes (autograd on,
dropout 0) with no guard, timed in this same run. (In eval mode under ``no_grad`` PyTorch runs the
block as one fused op, which would make the guard look free.) Measured: the guard with full
accounting (every op), and the sampling mode (``every=N``: one forward in N accounted).

The figure is CPU time of this process (``time.process_time``), with torch on one thread: the
guard's cost is CPU work, and CPU time stays meaningful on a shared machine where other processes
make wall time jump by 2-3x between rounds. Rounds are interleaved so what noise remains hits all
three alike; the median and the minimum (the least disturbed round, as timeit advises) are reported.

Small ops: the block spends ~1.5 ms per op, which hides a fixed per-op cost. The second part runs
a 4×Linear(64) MLP at batch 8 (a few µs per op) and compares against a named peer measured in the
same run: an empty ``TorchDispatchMode`` (the least any op-level tool built on torch's dispatch can
cost). Targets: full accounting ≤ 2× the empty mode; ``every=N`` ≤ 1.1× the plain forward.

Usage: python benchmarks/bench_guard.py [--rounds R] [--forwards F] [--every N] [--small-only]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

warnings.filterwarnings("ignore", message="Failed to initialize NumPy")

import torch  # noqa: E402 - after the filter: the CPU wheel warns about NumPy on import
from torch import nn  # noqa: E402

import envsnap  # noqa: E402

BATCH, SEQ, D_MODEL, HEADS = 32, 64, 256, 4


def _block() -> nn.Module:
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(
        D_MODEL, HEADS, dim_feedforward=4 * D_MODEL, dropout=0.0, batch_first=True
    )
    return layer.train()


def _rounds(run: Callable[[], None], forwards: int) -> float:
    started = time.process_time()
    for _ in range(forwards):
        run()
    return (time.process_time() - started) / forwards


def small_ops(rounds: int, every: int) -> None:
    """The small-op model against an empty TorchDispatchMode and the plain forward."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class EmptyMode(TorchDispatchMode):  # type: ignore[misc,no-untyped-call,unused-ignore]
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            return func(*args, **(kwargs or {}))

    torch.manual_seed(0)
    mlp = nn.Sequential(*(nn.Sequential(nn.Linear(64, 64), nn.ReLU()) for _ in range(4))).train()
    x = torch.randn(8, 64)
    forwards = 200  # whole sampling periods of every=20 and every=100: their averages are exact
    full = envsnap.guard(device="cpu")
    periods = (every, 100, 10**9)  # the last accounts only its first forward: the cost between samples
    sampled = {n: envsnap.guard(device="cpu", every=n) for n in periods}
    empty = EmptyMode()  # type: ignore[no-untyped-call,unused-ignore]

    def plain() -> None:
        mlp(x)

    def under_empty() -> None:
        with empty:
            mlp(x)

    def under_full() -> None:
        with full:
            mlp(x)

    for run in (plain, under_empty, under_full):
        for _ in range(50):
            run()
    results: dict[str, list[float]] = {"plain": [], "empty": [], "full": []}
    for n, guard in sampled.items():
        results[f"every={n}"] = []
        with guard:
            plain()  # its first forward is accounted: outside the timed rounds
    for _ in range(rounds):
        results["plain"].append(_rounds(plain, forwards))
        results["empty"].append(_rounds(under_empty, forwards))
        results["full"].append(_rounds(under_full, forwards))
        for n, guard in sampled.items():
            with guard:
                results[f"every={n}"].append(_rounds(plain, forwards))
    ops = full.report.ops_total // max(full.report.forwards_seen, 1)
    median = {key: statistics.median(values) for key, values in results.items()}

    def paired(key: str, base: str) -> float:
        # The ratio within each round (the runs of a round share the machine's state), then the
        # median: steadier on a shared machine than the ratio of the two medians.
        return statistics.median(a / b for a, b in zip(results[key], results[base], strict=True))

    print(
        f"small ops: 4×Linear(64)+ReLU MLP, batch 8, training-mode forward; {ops} ATen ops per forward; "
        f"{rounds} interleaved rounds of {forwards} forwards; medians, ratios paired per round"
    )
    print(f"{'plain forward':42s} {median['plain'] * 1e6:8.1f} µs")
    print(f"{'empty TorchDispatchMode (peer)':42s} {median['empty'] * 1e6:8.1f} µs")
    print(
        f"{'guard, full accounting':42s} {median['full'] * 1e6:8.1f} µs   "
        f"{paired('full', 'empty'):.2f}x the empty mode (target <= 2x)   "
        f"{paired('full', 'plain'):.2f}x plain"
    )
    floor = paired("empty", "plain") - 1.0
    for n in periods:
        key = f"every={n}"
        label = "guard, every=N, between samples" if n == periods[-1] else f"guard, sampling every={n}"
        bound = "" if n == periods[-1] else f"; floor set by the empty mode alone {1 + floor / n:.3f}x"
        print(
            f"{label:42s} {median[key] * 1e6:8.1f} µs   {paired(key, 'plain'):.3f}x plain "
            f"(target <= 1.1x{bound})"
        )
    per_op = (median["full"] - median["empty"]) / max(ops, 1)
    print(f"guard's own cost per op over the empty mode: {per_op * 1e6:.1f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--forwards", type=int, default=20)
    parser.add_argument("--every", type=int, default=20)
    parser.add_argument("--small-only", action="store_true", help="only the small-op model")
    args = parser.parse_args()
    torch.set_num_threads(1)
    small_ops(max(args.rounds, 15), args.every)
    if args.small_only:
        return
    block = _block()
    x = torch.randn(BATCH, SEQ, D_MODEL)
    full = envsnap.guard(device="cpu")
    sampled = envsnap.guard(device="cpu", every=args.every)

    def plain() -> None:
        block(x)

    def under_full() -> None:
        with full:
            block(x)

    def under_sampled() -> None:
        block(x)

    for run in (plain, under_full):
        run()  # warm up allocator and kernels
    results: dict[str, list[float]] = {"plain": [], "full": [], "sampled": []}
    for _ in range(args.rounds):
        results["plain"].append(_rounds(plain, args.forwards))
        results["full"].append(_rounds(under_full, args.forwards))
        with sampled:
            results["sampled"].append(_rounds(under_sampled, args.forwards))
    ops = full.report.ops_total // max(full.report.forwards_seen, 1)
    print(
        f"block: TransformerEncoderLayer(d_model={D_MODEL}, heads={HEADS}), training-mode forward, "
        f"batch {BATCH}, seq {SEQ}; {ops} ATen ops per forward; torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads; {args.rounds} rounds of {args.forwards} forwards"
    )
    base_median = statistics.median(results["plain"])
    base_min = min(results["plain"])
    print(
        f"{'baseline: plain forward':42s} median {base_median * 1e3:8.2f} ms   min {base_min * 1e3:8.2f} ms"
    )
    for label, key in (
        ("guard, full accounting", "full"),
        (f"guard, sampling every={args.every}", "sampled"),
    ):
        median, least = statistics.median(results[key]), min(results[key])
        print(
            f"{label:42s} median {median * 1e3:8.2f} ms   min {least * 1e3:8.2f} ms   "
            f"ratio {median / base_median:.3f}x (median)  {least / base_min:.3f}x (min)"
        )
    seen = sampled.report
    print(f"sampled guard accounted {seen.forwards_accounted} of {seen.forwards_seen} forwards")


if __name__ == "__main__":
    main()
