"""``envsnap gpus`` against ``gpustat`` (the named peer), one-shot wall time, on the stub two-H100 host.

Both tools are started as fresh processes REPS times, interleaved (the development machines are
shared: a slow patch hits both alike), on the stub ``libnvidia-ml.so.1`` (tests/fakes/nvml_stub.c
plus the functions gpustat also calls, benchmarks/nvml_peer_extras.c), each loaded through the
real nvidia-ml-py. Printed: the median wall time of each and the ratio envsnap / gpustat, for the
text view and for ``--json``. Target: ≤ 1.0× (no framework import is needed to look at GPUs).

gpustat comes from the peer venv (benchmarks/peers.py); ``--install-peers`` creates it. Without it
the script says so and exits 0.

Run from the repository root with envsnap installed: ``python benchmarks/bench_gpus.py``.
"""

from __future__ import annotations

import argparse
import compileall
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _wall(argv: list[str], env: dict[str, str], cwd: str) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(
            f"{argv[0]} failed ({done.returncode}): {done.stderr.decode(errors='replace')[-500:]}"
        )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--install-peers", action="store_true", help="pip-install gpustat into the peer venv")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import peers

    script = shutil.which("envsnap", path=str(Path(sys.executable).parent))
    if script is None:
        print(f"SKIPPED: no envsnap console script next to {sys.executable} (pip install -e . first)")
        return
    gpustat = peers.find_peer("gpustat", install=args.install_peers)
    if gpustat is None:
        peers.peer_missing("gpustat")
        return
    # An installed envsnap has byte-compiled modules; a checkout run with PYTHONDONTWRITEBYTECODE=1
    # would recompile its modules on every start and measure that.
    compileall.compile_dir(str(peers.REPO / "src" / "envsnap"), quiet=1)
    with tempfile.TemporaryDirectory() as cwd:
        stub = peers.build_stub(Path(cwd) / "stub")
        env = peers.stub_env(stub)
        runs = {
            "gpustat (baseline)": [str(gpustat)],
            "envsnap gpus": [script, "gpus"],
            "gpustat --json (baseline)": [str(gpustat), "--json"],
            "envsnap gpus --json": [script, "gpus", "--json"],
        }
        for argv in runs.values():  # warm the page cache; also fails early if a tool can't run
            _wall(argv, env, cwd)
        walls: dict[str, list[float]] = {label: [] for label in runs}
        for _ in range(args.reps):
            for label, argv in runs.items():
                walls[label].append(_wall(argv, env, cwd))
    print(f"envsnap gpus vs gpustat, stub 2× H100, wall time, median of {args.reps} interleaved runs")
    for ours, theirs in (
        ("envsnap gpus", "gpustat (baseline)"),
        ("envsnap gpus --json", "gpustat --json (baseline)"),
    ):
        base = statistics.median(walls[theirs])
        value = statistics.median(walls[ours])
        print(f"    {theirs:<28} {base * 1000:7.1f} ms")
        print(f"    {ours:<28} {value * 1000:7.1f} ms   {value / base:5.2f}x   (target <= 1.0x)")


if __name__ == "__main__":
    main()
