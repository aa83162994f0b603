"""Overhead of ``envsnap.guard`` on a small transformer block, as ratios against the plain forward.

Baseline: the same block, same input (batch 32), training-mode forward passes (autograd on,
dropout 0) with no guard, timed in this same run. (In eval mode under ``no_grad`` PyTorch runs the
block as one fused op, which would make the guard look free.) Measured: the guard with full
accounting (every op), and the sampling mode (``every=N``: one forward in N accounted).

The figure is CPU time of this process (``time.process_time``), with torch on one thread: the
guard's cost is CPU work, and CPU time stays meaningful on a shared machine where other processes
make wall time jump by 2-3x between rounds. Rounds are interleaved so what noise remains hits all
three alike; the median and the minimum (the least disturbed round, as timeit advises) are reported.

Usage: python benchmarks/bench_guard.py [--rounds R] [--forwards F] [--every N]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--forwards", type=int, default=20)
    parser.add_argument("--every", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(1)
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
