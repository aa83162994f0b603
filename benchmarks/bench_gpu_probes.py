"""What the toolkit and AMD probes cost, against the cheapest way to get the same facts.

Timed in one run, median of several repetitions:

  toolkits  ``toolkits.probe`` on this machine (nvcc on PATH, the toolkit trees, cuDNN/NCCL/ROCm
            searches) against the baseline of one ``nvcc --version`` subprocess, which is all
            ``torch.utils.collect_env`` spends on the toolkit;
  amd       ``amd.probe`` on the 4 × MI100 sysfs fixture tree against the baseline of reading every
            file of that tree once (the floor for any sysfs reader);
  sample    one ``read()`` of the AMD sysfs telemetry source over the same tree, against the same baseline.

Run: ``python benchmarks/bench_gpu_probes.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from envsnap.probes.amd import probe as amd
from envsnap.probes.base import ProbeContext
from envsnap.probes.toolkits import probe as toolkits

MI100X4 = Path(__file__).resolve().parents[1] / "tests" / "data" / "sysfs" / "mi100x4"


def median_s(work: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``work`` over ``repeat`` runs, after one warm-up."""
    work()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def read_tree(root: Path) -> int:
    """Read every file under ``root`` once; the byte count keeps the work from being optimized away."""
    total = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            with open(os.path.join(folder, name), "rb") as handle:
                total += len(handle.read())
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    repeat = parser.parse_args().repeat

    live = ProbeContext(environ={**os.environ, "PATH": "/usr/local/bin:/usr/bin:/bin"})
    nvcc_s = median_s(lambda: subprocess.run(["nvcc", "--version"], capture_output=True, check=False), repeat)
    toolkits_s = median_s(lambda: toolkits.probe(live), repeat)

    fixture = ProbeContext(root=MI100X4, environ={})
    files_s = median_s(lambda: read_tree(MI100X4), repeat)
    amd_s = median_s(lambda: amd.probe(fixture), repeat)
    source = amd.open_telemetry(fixture)
    assert source is not None
    sample_s = median_s(source.read, repeat)

    rows = [
        ("toolkits", toolkits_s, "nvcc --version", nvcc_s),
        ("amd", amd_s, "reading the tree", files_s),
        ("sample", sample_s, "reading the tree", files_s),
    ]
    for name, took_s, baseline, baseline_s in rows:
        ms, base_ms = took_s * 1e3, baseline_s * 1e3
        print(f"{name:9} {ms:7.2f} ms  vs {baseline:17} {base_ms:7.2f} ms  ratio {took_s / baseline_s:5.2f}")


if __name__ == "__main__":
    main()
