"""Time the python/packages probe against ``pip list`` and a full-METADATA importlib walk, in one run.

Four ways to list the same interpreter's distributions, each the median of ``--reps`` runs:

- ``probe in-process``: ``python_env.probe`` on envsnap's own interpreter (what ``envsnap save`` does);
- ``probe --python``: the same environment probed the ``--python PATH`` way (a child interpreter);
- ``importlib full``: ``importlib.metadata`` reading whole METADATA files with the email parser;
- ``pip list``: ``python -m pip list --format=json``, the baseline every ratio is against.

Usage: python benchmarks/bench_packages_probe.py [--reps N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from importlib import metadata
from unittest import mock

from envsnap.probes.base import ProbeContext
from envsnap.probes.python import probe as python_env


def _median_s(action: Callable[[], object], reps: int) -> float:
    action()  # warm the OS page cache and importlib's path cache alike for every contender
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _importlib_full() -> int:
    count = 0
    for dist in metadata.distributions():
        meta = dist.metadata  # parses the whole METADATA file
        if meta["Name"]:
            count += len((meta["Version"], meta.get_all("Requires-Dist") or []))
    return count


def _probe_as_child() -> python_env.PythonReading:
    with mock.patch.object(python_env, "_is_running_interpreter", return_value=False):
        return python_env.probe(ProbeContext())


def _pip_list() -> None:
    argv = [sys.executable, "-m", "pip", "list", "--format=json", "--disable-pip-version-check"]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    reading = python_env.probe(ProbeContext())
    print(f"{sys.executable}: {len(reading.packages or ())} distributions, median of {args.reps}")
    baseline_s = _median_s(_pip_list, args.reps)
    rows = [
        ("probe in-process", _median_s(lambda: python_env.probe(ProbeContext()), args.reps)),
        ("probe --python (child)", _median_s(_probe_as_child, args.reps)),
        ("importlib full", _median_s(_importlib_full, args.reps)),
        ("pip list (baseline)", baseline_s),
    ]
    for name, seconds in rows:
        print(f"{name:<24} {seconds * 1000:8.1f} ms   {seconds / baseline_s:6.3f} x pip list")


if __name__ == "__main__":
    main()
