"""Time a full ``envsnap save`` against ``python -m torch.utils.collect_env``, in one run.

Both are whole processes started the same way from this interpreter; envsnap's save includes the
framework probe (torch imported in the target interpreter) and the compiled-extension scan. The
scan caches by file size and mtime, so the first run is reported separately ("cold": an empty
cache folder) from the steady state ("warm").

Usage: python benchmarks/bench_save.py [--reps N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence


def _time(argv: Sequence[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "snap.yaml")
        save = [sys.executable, "-m", "envsnap", "save", "-o", out]
        baseline = [sys.executable, "-m", "torch.utils.collect_env"]
        cold_env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cold-cache"))
        warm_env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "warm-cache"))
        _time(save, warm_env)  # fill the warm cache; also warms the OS page cache for both tools
        _time(baseline, warm_env)
        cold, warm, collect_env = [], [], []
        for rep in range(args.reps):
            cold_env["XDG_CACHE_HOME"] = os.path.join(tmp, f"cold-cache-{rep}")
            cold.append(_time(save, cold_env))
            warm.append(_time(save, warm_env))
            collect_env.append(_time(baseline, warm_env))
        with open(out, encoding="utf-8") as handle:
            lines = sum(1 for _ in handle)
    base = statistics.median(collect_env)
    print(f"baseline: python -m torch.utils.collect_env   median {base * 1000:7.0f} ms  ({args.reps} reps)")
    for label, samples in (("envsnap save (warm cache)", warm), ("envsnap save (cold cache)", cold)):
        median = statistics.median(samples)
        print(f"{label:42s} median {median * 1000:7.0f} ms  ratio {median / base:.2f}x")
    print(f"snapshot written by envsnap: {lines} lines of YAML")


if __name__ == "__main__":
    main()
