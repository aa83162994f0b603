"""The loop both record/verify trials (hf_verify_trial.py, verify_trial2.py) run their cases with.

Each case runs in its own bundle folder; an exception is a CRASH with the innermost envsnap frame
(where to look); each outcome is printed as it comes, then the tally.
"""

from __future__ import annotations

import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

Case = TypeVar("Case")


def run_cases(
    cases: Iterable[Case],
    trial: Callable[[Case, Path], tuple[str, str]],
    label: Callable[[Case], str],
    *,
    width: int = 70,
    detail_chars: int = 200,
) -> int:
    """Run the cases whose label holds argv[1] (all without it); print each outcome, then the score."""
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    results: list[tuple[Case, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            name = label(case)
            if only and only not in name:
                continue
            started = time.perf_counter()
            bundle = Path(tmp) / f"b{len(results)}.envsnap"
            try:
                outcome, detail = trial(case, bundle)
            except Exception as exc:
                tb = traceback.extract_tb(exc.__traceback__)
                frame = next((f for f in reversed(tb) if "envsnap" in f.filename), tb[-1])
                outcome = "CRASH"
                where = f"{Path(frame.filename).name}:{frame.lineno}"
                detail = f"{type(exc).__name__}: {str(exc)[:detail_chars]} @ {where}"
            took = time.perf_counter() - started
            results.append((case, outcome, detail))
            print(f"{outcome:12s} {name:{width}s} {took:5.1f}s  {detail}", flush=True)
    tally: dict[str, int] = {}
    for _, outcome, _ in results:
        tally[outcome] = tally.get(outcome, 0) + 1
    print("\nSCORE", len(results), "cases:", ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    return 0
