"""Is redaction linear? Redacting a 1 MB adversarial string: target at most 0.5 s.

Each adversarial string repeats a piece that used to restart a pattern inside the run it had
just scanned (``a.`` for the URL scheme, ``eyJa-`` for JWTs, ``sk-``, ``login ``...), so the old
patterns took hours on 1 MB. Measured in the same run, median of several repetitions:

  baseline  ``re.sub`` of one simple literal-prefixed pattern (``token=\\S+``) over the same string:
            the cost of one regex pass, the least any redaction can do
  envsnap   ``redact_text`` (every secret shape, plus the command-line forms)

and printed as seconds and as a ratio to the baseline; a line is marked SLOW past 0.5 s. Also the
same at 100 KB, so linearity is visible (the 1 MB time should be ~10x the 100 KB one).
Run: ``python benchmarks/bench_redact.py [--size BYTES]``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Callable

from envsnap.snapshot.redact import redact_text

UNITS = ["a.", "eyJa-", "a://", "-u ", "mysql ", "login ", "sk-", "token=", "basic ", "a@", "a:", "--a-", "x"]
TARGET_S = 0.5
_BASELINE = re.compile(r"token=\S+")


def _median_s(work: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes per adversarial string")
    args = parser.parse_args()
    print(f"{'piece':>10} {'size':>9} {'baseline s':>11} {'envsnap s':>10} {'ratio':>7}")
    worst = 0.0
    for unit in UNITS:
        for size in (args.size // 10, args.size):
            text = unit * (size // len(unit))
            base = _median_s(lambda t=text: _BASELINE.sub("", t))  # type: ignore[misc]
            ours = _median_s(lambda t=text: redact_text(t))  # type: ignore[misc]
            if size == args.size:
                worst = max(worst, ours)
            flag = "  SLOW" if size == args.size and ours > TARGET_S else ""
            ratio = ours / max(base, 1e-6)
            print(f"{unit!r:>10} {len(text):>9} {base:>11.4f} {ours:>10.4f} {ratio:>6.1f}x{flag}")
    print(f"worst at {args.size} bytes: {worst:.3f} s (target {TARGET_S} s)")


if __name__ == "__main__":
    main()
