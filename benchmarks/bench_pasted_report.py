"""Judging a pasted report vs a saved snapshot: ``envsnap check report.txt`` at most 2x ``check snap.yaml``.

Builds a 2,000-line bug report of the kind people paste (a collect_env block, an 8-GPU
``nvidia-smi`` table, a ``pip list`` of ~1,900 packages, a torch warning and a traceback), imports it
once and saves the equivalent snapshot with envsnap's store, then times in the same run, median of
several repetitions, what ``envsnap check FILE`` does in-process (the CLI start-up is the same for
both and left out):

  baseline  ``check snap.yaml``: ``api.load`` of the saved snapshot (size cap, YAML scan, schema
            checks, msgspec conversion), redaction, every rule
  envsnap   ``check report.txt``: ``api.load`` of the report (format detection, every section
            parsed and merged, normalize, redact, fingerprint), redaction, every rule

and prints the ratio, with the import alone and the rules alone so the slow part is visible.
Run: ``python benchmarks/bench_pasted_report.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from envsnap import api
from envsnap.rules import evaluate
from envsnap.snapshot import store
from envsnap.snapshot.redact import redact_snapshot

TARGET_RATIO = 2.0
LINES = 2000

COLLECT_ENV = """\
Collecting environment information...
PyTorch version: 2.4.1+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.4 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Clang version: Could not collect
CMake version: version 3.29.2
Libc version: glibc-2.35

Python version: 3.11.9 (main, Apr 19 2024, 16:48:06) [GCC 11.2.0] (64-bit runtime)
Python platform: Linux-5.15.0-105-generic-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: 12.4.131
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration:
{gpus}

Nvidia driver version: 550.54.15
cuDNN version: Could not collect
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True

CPU:
Architecture:                         x86_64
CPU(s):                               224
Model name:                           Intel(R) Xeon(R) Platinum 8480+

Versions of relevant libraries:
[pip3] numpy==1.26.4
[pip3] torch==2.4.1
[pip3] triton==3.0.0
[conda] Could not collect
"""

TABLE_HEAD = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|=========================================+========================+======================|
"""

TRACEBACK = """\
Traceback (most recent call last):
  File "/home/me/train.py", line 12, in <module>
    model.cuda()
RuntimeError: CUDA error: out of memory
"""


def report_text() -> str:
    """A 2,000-line pasted report."""
    gpus = "\n".join(f"GPU {i}: NVIDIA H100 80GB HBM3" for i in range(8))
    rows = []
    for i in range(8):
        bus = f"00000000:{i + 0x18:02X}:00.0"
        rows.append(f"|   {i}  NVIDIA H100 80GB HBM3          On  |   {bus} Off |                    0 |")
        rows.append(
            "| N/A   33C    P0             71W /  700W |       4MiB /  81559MiB |      0%      Default |"
        )
        rows.append(
            "|                                         |                        |             Disabled |"
        )
        rows.append(
            "+-----------------------------------------+------------------------+----------------------+"
        )
    text = COLLECT_ENV.format(gpus=gpus) + "\n" + TABLE_HEAD + "\n".join(rows) + "\n\n" + TRACEBACK + "\n"
    text += "Package                  Version\n------------------------ ------------\n"
    count = LINES - text.count("\n")
    text += "\n".join(f"package-{i:04d}             {i % 7}.{i % 13}.{i % 5}" for i in range(count)) + "\n"
    return text


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def median_s(action: Callable[[], object], repeat: int) -> float:
    action()  # warm caches (knowledge tables, regexes) for both sides alike
    return statistics.median(_timed(action) for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.txt"
        report.write_text(report_text())
        saved = Path(folder) / "snap.yaml"
        store.save(api.load(report), saved)
        lines = report.read_text().count("\n")

        def check_saved() -> object:
            return evaluate(redact_snapshot(api.load(saved)))

        def check_report() -> object:
            return evaluate(redact_snapshot(api.load(report)))

        base = median_s(check_saved, args.repeat)
        total = median_s(check_report, args.repeat)
        load = median_s(lambda: api.load(report), args.repeat)
        loaded = api.load(saved)
        rules = median_s(lambda: evaluate(loaded), args.repeat)
    ratio = total / base
    verdict = "ok" if ratio < TARGET_RATIO else "OVER TARGET"
    print(f"pasted report: {lines} lines; median of {args.repeat} runs")
    print(f"baseline  check snap.yaml (load + redact + rules)     {base * 1000:8.1f} ms")
    print(
        f"envsnap   check report.txt (import + redact + rules)  {total * 1000:8.1f} ms   "
        f"{ratio:.2f}x baseline (target < {TARGET_RATIO}x: {verdict})"
    )
    print(f"  of which importing the report                       {load * 1000:8.1f} ms")
    print(f"  of which the rules                                  {rules * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
