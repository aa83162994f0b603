"""What the compiled-extension scan costs on a real environment, cold and warm, against walking it.

Timed in one run on the target environment's site-packages (this venv by default), median of
several repetitions:

  baseline  ``os.walk`` over every site-packages folder (``__pycache__`` pruned) plus a ``stat`` of
            each ``*.so*`` name: the least any scan that notices changed files must do
  cold      ``extensions.probe`` with an empty cache (every ELF object parsed with pyelftools)
  warm      ``extensions.probe`` again, the cache (path, size, mtime_ns) answering for every object

and prints each as a ratio to the baseline, plus the frameworks probe's wall time for scale
(its children import torch & co. in the target interpreter). The cache goes to a temporary
``XDG_CACHE_HOME``; the user's cache is not touched.

Run: ``python benchmarks/bench_extensions.py [--python PATH] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from envsnap.probes.base import ProbeContext
from envsnap.probes.extensions import probe as extensions
from envsnap.probes.frameworks import probe as frameworks


def timed(run: Callable[[], object], repeat: int, before: Callable[[], None] = lambda: None) -> float:
    """Median wall time of ``run`` in seconds; ``before`` runs untimed ahead of each repetition."""
    samples = []
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def walk_floor(roots: list[str]) -> int:
    count = 0
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [name for name in dirs if name != "__pycache__"]  # as the scan does
            for name in files:
                if extensions.is_shared_object_name(name):
                    os.stat(os.path.join(folder, name))
                    count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter whose environment is scanned")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    ctx = ProbeContext(python=args.python)
    roots = extensions.site_directories(ctx)
    if isinstance(roots, str):
        raise SystemExit(roots)
    with tempfile.TemporaryDirectory() as cache_home:
        os.environ["XDG_CACHE_HOME"] = cache_home
        cache = Path(cache_home, "envsnap", "extensions-v1.json")
        baseline = timed(lambda: walk_floor(roots), args.repeat)
        cold = timed(lambda: extensions.probe(ctx), args.repeat, before=lambda: cache.unlink(missing_ok=True))
        result = extensions.probe(ctx)
        warm = timed(lambda: extensions.probe(ctx), args.repeat)
    fw = timed(lambda: frameworks.probe(ctx), max(1, args.repeat // 2))
    print(f"environment: {', '.join(roots)}")
    print(f"shared objects: {walk_floor(roots)} named *.so*, {result.scanned_files} ELF")
    print(f"distributions linking accelerator libraries: {len(result.distributions or ())}")
    print(f"baseline (walk + stat)   {baseline * 1000:8.1f} ms   1.00x")
    print(f"cold scan (empty cache)  {cold * 1000:8.1f} ms   {cold / baseline:5.2f}x baseline")
    print(f"warm scan (cache hits)   {warm * 1000:8.1f} ms   {warm / baseline:5.2f}x baseline")
    print(f"warm / cold                                {warm / cold:5.3f}")
    print(f"frameworks probe, for scale {fw * 1000:8.1f} ms   {fw / baseline:5.1f}x baseline")


if __name__ == "__main__":
    main()
