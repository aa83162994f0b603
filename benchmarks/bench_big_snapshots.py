"""Big snapshots: load time with and without the garbage collector, peak memory of a 50k diff, fleet.

Each figure is printed against its named baseline, measured in the same run:

(a) Load time of one snapshot of 1k and 10k distributions (``store.load``), against parsing the
    same file with PyYAML's CSafeLoader alone, and against ``store.load`` with the collector
    forced on during the load (what envsnap did before it paused the collector; the issue's
    "superlinear" growth). Medians, runs interleaved.
(b) Peak memory (max RSS of a fresh process) of ``envsnap diff A B --json`` on two 50k-package
    snapshots, against a fresh process that only reads and ``yaml.load``s the same two files.
    Target: under 2x.
(c) Fleet: ``envsnap diff`` of N snapshots of 10k packages (CPU time of the process), against N
    bare ``yaml.load``s in a fresh process. The fleet view flattens each file once.
(d) The security issue's scale case (#15 item 13): two snapshots of 150k distributions (name and
    version: ~6.5 MB each, the issue's 5.5 MB), every version changed in the second
    (the worst case for the diff and its table). Wall time of fresh processes running
    ``envsnap show A``, ``envsnap diff A B`` (text, JSON, Markdown), against a fresh process that
    only ``yaml.load``s both files with CSafeLoader — with the collector as Python leaves it
    (what the obvious script gets) and with it off (the stricter baseline). Target: diff within
    3x the bare load.

The machines this runs on are shared: every ratio is a median of interleaved runs.
Run: ``python benchmarks/bench_big_snapshots.py [--quick]``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_diff import make_pair, median_s
from envsnap.snapshot import store, yaml_text

BARE_LOAD = """
import resource, sys, time, yaml
loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
start = time.process_time()
docs = [yaml.load(open(p, encoding="utf-8").read(), Loader=loader) for p in sys.argv[1:]]
cpu = time.process_time() - start
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, cpu)
"""

ENVSNAP_DIFF = """
import resource, sys, time
from envsnap.cli import run
start = time.process_time()
code = run(["diff", "--json", *sys.argv[1:]])
cpu = time.process_time() - start
sys.stdout.flush()
sys.stderr.write(f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} {cpu} {code}\\n")
"""


BARE_LOAD_GC_OFF = "import gc; gc.disable()\n" + BARE_LOAD


def _quiet(argv: list[str]) -> Callable[[], object]:
    """Running ``argv`` in a fresh process, its output thrown away."""
    return lambda: subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def scale_pair(count: int, folder: Path) -> tuple[Path, Path]:
    """Two files of ``count`` name/version distributions, every version changed in B."""
    import msgspec

    from envsnap.snapshot.model import Package

    old, _ = make_pair(20)  # the sections around the packages: python, meta
    packages = tuple(
        Package(name=f"pkg-{i:06d}-{('core', 'utils', 'cli')[i % 3]}", version=f"{i % 31}.{i % 41}.{i % 21}")
        for i in range(count)
    )  # fmt: skip
    upgraded = tuple(msgspec.structs.replace(p, version=p.version + ".post1") for p in packages)
    a = store.save(msgspec.structs.replace(old, packages=packages), folder / f"scale-a-{count}.yaml")
    b = store.save(msgspec.structs.replace(old, packages=upgraded), folder / f"scale-b-{count}.yaml")
    return a, b


def scale(count: int, repeat: int, folder: Path) -> None:
    a, b = scale_pair(count, folder)
    envsnap = [sys.executable, "-m", "envsnap"]
    runs = {
        "bare yaml.load x2 (collector on)": [sys.executable, "-c", BARE_LOAD, str(a), str(b)],
        "bare yaml.load x2 (collector off)": [sys.executable, "-c", BARE_LOAD_GC_OFF, str(a), str(b)],
        "envsnap show A": [*envsnap, "show", str(a)],
        "envsnap diff A B (text)": [*envsnap, "diff", str(a), str(b)],
        "envsnap diff A B --json": [*envsnap, "diff", "--json", str(a), str(b)],
        "envsnap diff A B --format markdown": [*envsnap, "diff", "--format", "markdown", str(a), str(b)],
    }
    wall = dict(zip(runs, median_s([_quiet(argv) for argv in runs.values()], repeat), strict=True))
    on, off = wall["bare yaml.load x2 (collector on)"], wall["bare yaml.load x2 (collector off)"]
    print(
        f"(d) {count} packages, {a.stat().st_size / 1e6:.1f} MB per file, every version changed; "
        f"wall seconds of a fresh process, median of {repeat}"
    )
    for label, seconds in wall.items():
        if label.startswith("bare"):
            print(f"    {label:<36} {seconds:7.1f} s")
        else:
            baseline = on / 2 if label.endswith("show A") else on  # show reads one file
            strict = off / 2 if label.endswith("show A") else off
            print(
                f"    {label:<36} {seconds:7.1f} s   {seconds / baseline:.2f}x the bare load, "
                f"{seconds / strict:.2f}x with its collector off (target <= 3x)"
            )


def _child(script: str, files: list[Path]) -> tuple[float, float]:
    """(peak RSS in MiB, CPU seconds) of a fresh interpreter running ``script`` on ``files``."""
    done = subprocess.run(
        [sys.executable, "-c", script, *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
    )
    line = (done.stdout if "envsnap" not in script else done.stderr).strip().splitlines()[-1]
    rss_kib, cpu = line.split()[:2]
    return int(rss_kib) / 1024, float(cpu)


@contextlib.contextmanager
def _collector_forced_on() -> Iterator[None]:
    """Make ``yaml_text.paused_gc`` a no-op: the loader as it was before the pause was added."""
    real = yaml_text.paused_gc
    yaml_text.paused_gc = contextlib.nullcontext  # type: ignore[assignment]
    try:
        yield
    finally:
        yaml_text.paused_gc = real


def _time(action: object) -> float:
    start = time.perf_counter()
    action()  # type: ignore[operator]
    return time.perf_counter() - start


def load_times(path: Path, repeat: int) -> tuple[float, float, float]:
    """Median seconds of: bare yaml.load, store.load, store.load with the collector on."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    text = path.read_text(encoding="utf-8")
    samples: list[list[float]] = [[], [], []]
    keep: list[object] = []  # a TUI or a fleet diff holds other objects while loading: so do we
    for _ in range(repeat):
        gc.collect()
        samples[0].append(_time(lambda: keep.append(yaml.load(text, Loader=loader))))
        gc.collect()
        samples[1].append(_time(lambda: keep.append(store.load(path))))
        gc.collect()
        with _collector_forced_on():
            samples[2].append(_time(lambda: keep.append(store.load(path))))
        keep.clear()
    bare, paused, forced = (statistics.median(s) for s in samples)
    return bare, paused, forced


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    args = parser.parse_args()
    repeat = 3 if args.quick else 5
    big = 20_000 if args.quick else 50_000
    fleet_n = 4 if args.quick else 10
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("(a) load one snapshot, median of interleaved runs")
        for count in (1_000, 10_000):
            old, _ = make_pair(count)
            path = store.save(old, folder / f"load-{count}.yaml")
            bare, paused, forced = load_times(path, repeat)
            print(
                f"    {count:>6} packages ({path.stat().st_size / 1e6:5.1f} MB): yaml.load {bare:6.2f} s · "
                f"envsnap {paused:6.2f} s ({paused / bare:.2f}x) · collector on during the load "
                f"{forced:6.2f} s ({forced / bare:.2f}x)"
            )

        old, new = make_pair(big)
        a, b = store.save(old, folder / "a.yaml"), store.save(new, folder / "b.yaml")
        del old, new
        bare_rss, envsnap_rss = [], []
        for _ in range(max(repeat - 2, 1)):
            bare_rss.append(_child(BARE_LOAD, [a, b])[0])
            envsnap_rss.append(_child(ENVSNAP_DIFF, [a, b])[0])
        bare_mib, envsnap_mib = statistics.median(bare_rss), statistics.median(envsnap_rss)
        print(f"(b) peak RSS, two snapshots of {big} packages ({a.stat().st_size / 1e6:.1f} MB each), median")
        print(f"    bare yaml.load of both (baseline)   {bare_mib:7.0f} MiB")
        print(
            f"    envsnap diff A B --json              {envsnap_mib:7.0f} MiB   "
            f"ratio {envsnap_mib / bare_mib:.2f}x (target < 2x)"
        )

        hosts = []
        for i in range(fleet_n):
            first, second = make_pair(10_000)
            hosts.append(store.save(first if i % 3 else second, folder / f"host{i}.yaml"))
            del first, second
        bare_cpu, envsnap_cpu = [], []
        for _ in range(max(repeat - 2, 1)):
            bare_cpu.append(_child(BARE_LOAD, hosts)[1])
            envsnap_cpu.append(_child(ENVSNAP_DIFF, hosts)[1])
        bare_s, envsnap_s = statistics.median(bare_cpu), statistics.median(envsnap_cpu)
        print(f"(c) fleet diff of {fleet_n} snapshots of 10000 packages, CPU seconds, median")
        print(f"    bare yaml.load of all (baseline)    {bare_s:7.1f} s")
        print(f"    envsnap diff (fleet view)           {envsnap_s:7.1f} s   ratio {envsnap_s / bare_s:.2f}x")
        scale(150_000, 1 if args.quick else 3, folder)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
