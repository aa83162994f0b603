"""Overhead of ``envsnap run`` on a CPU-bound workload, as ratios against the workload alone.

Baseline: the workload (a pure-Python loop, single core) started directly as
``python -c ...``, timed in this same run. Measured: the same command under
``envsnap run --no-report --no-status`` at the default 1 s interval and at a 0.1 s interval.

Two ratios per mode: the workload's own compute time (it times its loop and prints it, so this is
pure interference from the sampling thread) and the wall time of the whole command (which adds
envsnap's start-up and the final report, a fixed cost that a short benchmark overstates). Runs are
interleaved so load from other processes hits every mode alike; medians are reported.

Usage: python benchmarks/bench_run_overhead.py [--reps N] [--loops L]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

WORKLOAD = """
import time
started = time.perf_counter()
total = 0
for i in range({loops}):
    total += i * i
print(time.perf_counter() - started)
"""


def _timed(argv: Sequence[str]) -> tuple[float, float]:
    """(the workload's own loop time, the wall time of the whole command), seconds."""
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    return float(done.stdout.strip().splitlines()[-1]), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--loops", type=int, default=80_000_000, help="loop iterations (~5 s on a slow core)")
    args = parser.parse_args()
    workload = [sys.executable, "-c", WORKLOAD.format(loops=args.loops)]
    envsnap = [sys.executable, "-m", "envsnap", "run", "--no-report", "--no-status"]
    modes = {
        "alone": workload,
        "envsnap run (interval 1 s)": [*envsnap, "--", *workload],
        "envsnap run (interval 0.1 s)": [*envsnap, "--interval", "0.1", "--", *workload],
    }
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in modes}
    _timed(modes["envsnap run (interval 1 s)"])  # warm the page cache for envsnap's imports
    for _ in range(args.reps):
        for name, argv in modes.items():
            results[name].append(_timed(argv))
    base_loop = statistics.median(r[0] for r in results["alone"])
    base_wall = statistics.median(r[1] for r in results["alone"])
    print(f"workload: {args.loops:,} iterations of a pure-Python loop; {args.reps} interleaved runs per mode")
    print(f"{'baseline: workload alone':32s} loop {base_loop:7.3f} s   wall {base_wall:7.3f} s")
    for name in list(modes)[1:]:
        loop = statistics.median(r[0] for r in results[name])
        wall = statistics.median(r[1] for r in results[name])
        print(
            f"{name:32s} loop {loop:7.3f} s   wall {wall:7.3f} s   "
            f"ratio {loop / base_loop:.3f}x (loop)  {wall / base_wall:.3f}x (wall)"
        )


if __name__ == "__main__":
    main()
