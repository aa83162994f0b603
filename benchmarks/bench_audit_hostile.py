"""Are audit's build-file scans linear? The issue-25 shapes at 200 KB and 2 MB: target 2 s at 2 MB.

Each shape repeats a piece that made an old pattern restart a long scan at every occurrence
(``pip install`` with no ``apex``, ``LANGUAGES`` with no ``)``, ``"a[`` extras that never close, a
``TORCH_CUDA_ARCH_LIST`` value of spaces): 76 KB took 4-17 s before, about 4x per doubling.
Measured in the same run, median of three:

  baseline  ``data.count(b"cuda")``-like grep work: one ``re.findall`` of a literal over the text,
            the least any scan of those bytes costs
  envsnap   ``audit.file_scan.scan_file`` on the file (read, decode, parse or line scan, signals)

printed as seconds and as a ratio to the baseline; the 2 MB time should be ~10x the 200 KB one
(linear), and a line is marked SLOW past 2 s. Run: ``python benchmarks/bench_audit_hostile.py``.
"""

from __future__ import annotations

import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from envsnap.audit.file_scan import scan_file
from envsnap.audit.walk import Entry

SHAPES = {
    "Dockerfile": ("docker", "FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nRUN ", "pip install ", "\n"),
    "CMakeLists.txt": ("build", "enable_language(CUDA)\nproject(x ", "LANGUAGES ", "\n"),
    "pyproject.toml": ("build", '[project]\ndependencies = ["flash-attn==2.5.0", ', '"a[', '"]\n'),
    "kernel.cu": ("native", "#include <cuda_runtime.h>\n__global__ void k() {}\n", "#include <", "\n"),
    "setup.py": ("python", 'import os\nos.environ["TORCH_CUDA_ARCH_LIST"] = "8.0', " ", 'x"\nx.cuda()\n'),
}
TARGET_S = 2.0
_BASELINE = re.compile(r"cuda")


def _median_s(work: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    print(f"{'file':>15} {'size':>9} {'baseline s':>11} {'envsnap s':>10} {'ratio':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for name, (kind, head, unit, tail) in SHAPES.items():
            for size in (200_000, 2_000_000):
                text = head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail
                path = Path(folder, name)
                path.write_text(text)
                entry = Entry(str(path), name, kind)  # type: ignore[arg-type]
                base = _median_s(lambda t=text: _BASELINE.findall(t))  # type: ignore[misc]
                ours = _median_s(lambda e=entry: scan_file(e))  # type: ignore[misc]
                flag = "  SLOW" if ours > TARGET_S else ""
                print(f"{name:>15} {len(text):>9,} {base:>11.4f} {ours:>10.3f} {ours / base:>7.0f}x{flag}")


if __name__ == "__main__":
    main()
