"""Pathological pastes cost time linear in their size: parse_auto against ``str.splitlines``.

The hostile-input run behind issue 21 found parsers that took 6 s to minutes on 20,000 blank lines,
one 3,000-space ``nvidia-smi -q`` line, 100 KB table rows and collect_env lines, ``<?xml`` repeated
and a 250k-line collect_env. This times, in one run, each shape at 1 MB and 2 MB:

  baseline  ``text.splitlines()`` of the same text (the least any line reader must do)
  envsnap   ``parse_auto`` of it (detection, every structural parser, line-by-line facts)

and prints the ratio to the baseline and the growth from 1 MB to 2 MB (2.0 is linear; a quadratic
step shows 4). tests/security/test_21_paste_linear.py asserts the same without a clock.
Run: ``python benchmarks/bench_paste_shapes.py``.
"""

from __future__ import annotations

import contextlib
import statistics
import time

from envsnap.errors import BadInput
from envsnap.importers.auto import parse_auto

MB = 1024 * 1024
SHAPES = {
    "20k+ blank lines": ("PyTorch version: 2.1.0\n", "\n"),
    "nvidia-smi -q, one long blank run": ("==============NVSMI LOG==============\n\n", " "),
    "nvidia-smi row of 100 KB+": (
        "| NVIDIA-SMI 535.54.03    Driver Version: 535.54.03    CUDA Version: 12.2 |\n",
        "A ",
    ),
    "collect_env OS line": ("PyTorch version: 2.1.0\nOS: a", " "),
    "<?xml repeated": ("", "<?xml "),
    "250k package lines": ("PyTorch version: 2.1.0\nVersions of relevant libraries:\n", "[pip3] pkg==1.0\n"),
    "journald-prefixed warnings": ("", "Oct 04 13:19:39 host unit[394]: NVIDIA GeForce RTX 5090 with CUDA\n"),
}


def _median(action: object, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _parse(text: str) -> None:
    with contextlib.suppress(BadInput):
        parse_auto(text, "paste.txt", captured_at="2026-01-01T00:00:00Z")


def main() -> None:
    print(f"{'shape':36s} {'1 MB':>9s} {'x splitlines':>13s} {'2 MB / 1 MB':>12s}")
    for name, (head, unit) in SHAPES.items():
        one = head + unit * ((MB - len(head)) // len(unit))
        two = head + unit * ((2 * MB - len(head)) // len(unit))
        base = _median(lambda one=one: one.splitlines())
        t1 = _median(lambda one=one: _parse(one))
        t2 = _median(lambda two=two: _parse(two))
        print(f"{name:36s} {t1:8.3f}s {t1 / base:12.0f}x {t2 / t1:11.2f}")


if __name__ == "__main__":
    main()
