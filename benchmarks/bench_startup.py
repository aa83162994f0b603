"""Start-up cost of the command line: ``envsnap --version`` against a bare ``python -I -c pass``.

Both are started as fresh processes REPS times, interleaved (the development machines are shared:
a slow patch hits both alike), from the same virtual environment; the median wall time of each and
their ratio are printed. Target: ≤ 3×. ``envsnap --help`` (which must import click and list the
commands) is shown for reference.

Also (item 7 of the performance issue): the fixed CPU cost of ``envsnap run -- true`` (the sampler
started, a trivial command, the report written) against ``python -I -c pass``, in CPU seconds of
the whole process tree (``resource.RUSAGE_CHILDREN``).

And (item 4): ``envsnap show`` on the live machine against ``gpustat`` (the named peer, from the
peer venv, see benchmarks/peers.py), both on the stub ``libnvidia-ml.so.1`` serving two H100s,
wall time, interleaved, median: once with the framework cache warm (an unchanged machine, the
target: ≤ 2×), once with ``--no-cache`` (torch imported again).

Run from the repository root with envsnap installed: ``python benchmarks/bench_startup.py``
(``--install-peers`` creates the peer venv).
"""

from __future__ import annotations

import argparse
import compileall
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _wall(argv: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=cwd)
    return time.perf_counter() - start


def _cpu(argv: list[str], cwd: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=21)
    parser.add_argument("--install-peers", action="store_true", help="pip-install gpustat into the peer venv")
    parser.add_argument("--show-only", action="store_true", help="only envsnap show vs gpustat")
    args = parser.parse_args()
    script = shutil.which("envsnap", path=str(Path(sys.executable).parent))
    if script is None:
        print(f"SKIPPED: no envsnap console script next to {sys.executable} (pip install -e . first)")
        return
    # An installed envsnap has byte-compiled modules; a checkout run with PYTHONDONTWRITEBYTECODE=1
    # (set on the development machines) would recompile ~100 modules per start and measure that.
    compileall.compile_dir(str(Path(__file__).resolve().parents[1] / "src" / "envsnap"), quiet=1)
    bare = [sys.executable, "-I", "-c", "pass"]
    if not args.show_only:
        _startup(script, bare, args.reps)
    _show_against_gpustat(script, max(args.reps // 3, 3), args.install_peers)


def _show_against_gpustat(script: str, reps: int, install: bool) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import peers

    gpustat = peers.find_peer("gpustat", install=install)
    if gpustat is None:
        peers.peer_missing("gpustat")
        return
    with tempfile.TemporaryDirectory() as cwd:
        stub = peers.build_stub(Path(cwd) / "stub")
        env = peers.stub_env(stub, XDG_CACHE_HOME=str(Path(cwd) / "cache"))
        runs = {
            "gpustat (baseline)": [str(gpustat)],
            "envsnap show (cache warm)": [script, "show"],
            "envsnap show --no-cache": [script, "show", "--no-cache"],
        }
        # The first show fills the framework cache: "an unchanged machine" from then on.
        subprocess.run([script, "show"], env=env, cwd=cwd, capture_output=True, check=False)
        walls: dict[str, list[float]] = {label: [] for label in runs}
        for _ in range(reps):
            for label, argv in runs.items():
                start = time.perf_counter()
                subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
                walls[label].append(time.perf_counter() - start)
    base = statistics.median(walls["gpustat (baseline)"])
    print(f"envsnap show vs gpustat, stub 2× H100, wall time, median of {reps} interleaved runs")
    for label, values in walls.items():
        value = statistics.median(values)
        target = "   (target <= 2x)" if label == "envsnap show (cache warm)" else ""
        print(f"    {label:<32} {value:6.2f} s   {value / base:5.2f}x{target}")


def _startup(script: str, bare: list[str], reps: int) -> None:
    args = argparse.Namespace(reps=reps)
    runs = {
        "python -I -c pass (baseline)": bare,
        "envsnap --version": [script, "--version"],
        "envsnap --help": [script, "--help"],
    }
    with tempfile.TemporaryDirectory() as cwd:
        walls: dict[str, list[float]] = {label: [] for label in runs}
        for _ in range(args.reps):
            for label, argv in runs.items():
                walls[label].append(_wall(argv, cwd))
        base = statistics.median(walls["python -I -c pass (baseline)"])
        print(f"start-up, wall time, median of {args.reps} interleaved runs")
        for label, values in walls.items():
            value = statistics.median(values)
            target = "   (target <= 3x)" if label == "envsnap --version" else ""
            print(f"    {label:<32} {value * 1000:7.1f} ms   {value / base:5.2f}x{target}")

        run = [script, "run", "--no-report", "--no-status", "--", "true"]
        cpus: dict[str, list[float]] = {"python -I -c pass (baseline)": [], "envsnap run -- true": []}
        for _ in range(max(args.reps // 3, 3)):
            cpus["python -I -c pass (baseline)"].append(_cpu(bare, cwd))
            cpus["envsnap run -- true"].append(_cpu(run, cwd))
        base_cpu = statistics.median(cpus["python -I -c pass (baseline)"])
        run_cpu = statistics.median(cpus["envsnap run -- true"])
        print("fixed CPU cost of `envsnap run` (process tree CPU seconds, median)")
        print(f"    python -I -c pass (baseline)      {base_cpu:6.3f} s")
        print(
            f"    envsnap run -- true               {run_cpu:6.3f} s   {run_cpu / max(base_cpu, 1e-3):5.1f}x"
        )


if __name__ == "__main__":
    main()
