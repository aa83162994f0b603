"""How much slower is ``envsnap diff`` than just parsing the two YAML files? Target: at most 1.5x.

Generates two realistic snapshots of ~3,000 distributions each (names, versions, Requires-Dist
lines with specifiers, markers and extras, a few VCS installs), writes them with envsnap's store,
then times in the same run, median of several repetitions:

  baseline  reading the two files and ``yaml.load`` with PyYAML's CSafeLoader (LibYAML), nothing else
  envsnap   what ``envsnap diff A B`` does: ``diff_input.load_checked`` of both (``store.load``:
            size cap, alias/tag scan, schema checks, msgspec conversion; then redaction and a
            recomputed fingerprint) plus ``diff`` (flatten both, compare, classify)

and prints the ratio, plus a breakdown (store.load alone, diff alone, the fleet view over 100
copies) so the slow part is visible. Run: ``python benchmarks/bench_diff.py [--packages N]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import yaml

from envsnap.api import load_checked
from envsnap.compare.diff import diff
from envsnap.fleet.view import fleet
from envsnap.snapshot import store
from envsnap.snapshot.finalize import checked
from envsnap.snapshot.model import SCHEMA_VERSION, Meta, Package, PackageSource, PythonEnv, Snapshot

_SYLLABLES = ["py", "ml", "torch", "data", "fast", "json", "http", "async", "io", "cu", "nn", "vision"]
_SYLLABLES += ["text", "audio", "grad", "core", "lib", "net", "sql", "yaml"]
_SUFFIXES = ["", "-utils", "-core", "-client", "-server", "-plugin", "_ext", "-cli", "-types", "-lite"]
_MARKERS = [
    "",
    '; python_version >= "3.9"',
    '; platform_system != "Windows"',
    '; extra == "test"',
    '; sys_platform == "linux" and platform_machine == "x86_64"',
]


def _names(count: int, rng: random.Random) -> list[str]:
    names: set[str] = set()
    while len(names) < count:
        parts = rng.sample(_SYLLABLES, rng.randint(1, 3))
        names.add(
            "".join(parts) + rng.choice(_SUFFIXES) + (str(rng.randint(2, 9)) if rng.random() < 0.2 else "")
        )
    return sorted(names)


def _version(rng: random.Random) -> str:
    return f"{rng.randint(0, 30)}.{rng.randint(0, 40)}.{rng.randint(0, 20)}"


def make_packages(count: int, seed: int) -> list[Package]:
    """``count`` distributions with realistic metadata; the same seed gives the same list."""
    rng = random.Random(seed)
    names = _names(count, rng)
    packages = []
    for name in names:
        requires = tuple(
            f"{dep}>={_version(rng)},!={_version(rng)}{rng.choice(_MARKERS)}"
            for dep in rng.sample(names, rng.randint(0, 6))
            if dep != name
        )
        source = PackageSource(kind="index")
        if rng.random() < 0.01:
            commit = f"{rng.getrandbits(160):040x}"
            source = PackageSource(
                kind="vcs", url=f"https://github.com/example/{name}", vcs="git", commit_id=commit
            )
        packages.append(
            Package(
                name=name,
                version=_version(rng),
                installer="pip",
                source=source,
                requires=requires,
                top_level=(name.replace("-", "_"),),
            )
        )
    return packages


def make_pair(count: int) -> tuple[Snapshot, Snapshot]:
    """A snapshot and a later one: 5% of versions changed, 20 distributions removed, 20 added."""
    rng = random.Random(7)
    before = make_packages(count, seed=1)
    after = [
        msgspec.structs.replace(p, version=_version(rng)) if rng.random() < 0.05 else p for p in before[20:]
    ]
    after += make_packages(20, seed=2)
    python = PythonEnv(status="ok", version="3.11.7", implementation="CPython", env_kind="venv")

    def snapshot(packages: list[Package]) -> Snapshot:
        meta = Meta(envsnap_version="0.1.0", captured_at="2026-11-29T12:00:00Z")
        ordered = tuple(sorted(packages, key=lambda p: p.name.lower()))
        return Snapshot(schema=SCHEMA_VERSION, meta=meta, python=python, packages=ordered)

    return snapshot(before), snapshot(after)


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def median_s(actions: list[Callable[[], object]], repeat: int) -> list[float]:
    """Median wall time of each action over ``repeat`` rounds; the actions take turns within a
    round, so a slow patch of a shared machine hits them alike instead of skewing the ratio."""
    times: list[list[float]] = [[] for _ in actions]
    for _ in range(repeat):
        for action, samples in zip(actions, times, strict=True):
            samples.append(_timed(action))
    return [statistics.median(samples) for samples in times]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--packages", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    old, new = make_pair(args.packages)
    with tempfile.TemporaryDirectory() as folder:
        a, b = Path(folder, "a.yaml"), Path(folder, "b.yaml")
        store.save(old, a)
        store.save(new, b)
        size_kib = (a.stat().st_size + b.stat().st_size) / 2 / 1024
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        def baseline() -> object:
            return [yaml.load(path.read_text(encoding="utf-8"), Loader=loader) for path in (a, b)]

        def envsnap_diff() -> object:
            (first, second), _ = load_checked([a, b])
            return diff(first, second)

        def load_only() -> object:
            return [store.load(a), store.load(b)]

        loaded_a, loaded_b = store.load(a), store.load(b)
        changes = diff(loaded_a, loaded_b)
        base, total, loads = median_s([baseline, envsnap_diff, load_only], args.repeat)
        (pure,) = median_s([lambda: diff(loaded_a, loaded_b)], args.repeat)
        (check,) = median_s([lambda: (checked(loaded_a), checked(loaded_b))], args.repeat)
        hosts = [loaded_a] * 99 + [loaded_b]
        (fleet_s,) = median_s([lambda: fleet(hosts, [f"h{i}" for i in range(100)])], 3)

    print(
        f"two snapshots of {args.packages} distributions (~{size_kib:.0f} KiB each); {len(changes)} changes"
    )
    print(f"baseline  yaml.load (CSafeLoader) x2   {base * 1000:8.1f} ms")
    ratio = f"ratio {total / base:.2f}x (target <= 1.5x)"
    print(f"envsnap   load_checked x2 + diff        {total * 1000:8.1f} ms   {ratio}")
    print(f"  of which store.load x2                {loads * 1000:8.1f} ms   ({loads / base:.2f}x baseline)")
    print(f"  of which redact + fingerprint x2      {check * 1000:8.1f} ms")
    print(f"  of which diff (flatten x2 + compare)  {pure * 1000:8.1f} ms")
    print(f"fleet view of 100 such snapshots        {fleet_s * 1000:8.1f} ms (inputs already loaded)")


if __name__ == "__main__":
    main()
