"""How much slower is ``envsnap audit``'s project scan than ``rg -c cuda``? Target: at most 3x.

Generates a 5,000-file Python tree shaped like a large ML monorepo (packages of modules with
classes, functions and docstrings; about one file in eight touches CUDA: ``.cuda()``,
``torch.cuda.synchronize()``, ``device="cuda"``, cudnn flags, a flash-attn import), then times in
the same run, median of several repetitions, caches warm for both:

  baseline  ``rg -c cuda TREE`` (or ``grep -rc cuda TREE`` where ripgrep is absent), a subprocess
  envsnap   ``scan_tree(TREE)``: walk without following links, a byte pre-filter per file, a
            syntax tree for each file with a trigger word, parsing spread over a process pool

and prints both times and the ratio. Run: ``python benchmarks/bench_audit.py [--files N]``.

``--tree PATH`` measures a real tree instead (issue 22: synthetic files flatter the scan). The
figure in docs/benchmarks.md is transformers 5.24.0's wheel unpacked (2,919 files):
``pip download transformers --no-deps -d /tmp/tf && python -m zipfile -e /tmp/tf/*.whl /tmp/tf/tree``.
CPU time is printed next to wall time: on a shared machine the wall clock measures the neighbours.
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import envsnap as envsnap_package
from envsnap.audit.file_read import read_capped
from envsnap.audit.scan import scan_tree
from envsnap.audit.scanners.python_trigger import triggered
from envsnap.audit.walk import walk

PLAIN = '''"""Module {n}: data helpers for the {pkg} package."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass
class Record{n}:
    """A row of the {pkg} table."""

    key: str
    value: float
    weight: float = 1.0

    def scaled(self, factor: float) -> float:
        return self.value * self.weight * factor


def summarize_{n}(rows: list[Record{n}]) -> dict[str, float]:
    total = sum(r.scaled(1.0) for r in rows)
    spread = math.sqrt(sum((r.value - total / max(len(rows), 1)) ** 2 for r in rows))
    return {{"total": total, "spread": spread, "count": float(len(rows))}}
'''

CUDA = '''"""Module {n}: training step for the {pkg} package."""

import torch
from flash_attn import flash_attn_func

torch.backends.cudnn.benchmark = True


def step_{n}(model, batch):
    model = model.cuda()
    x = batch.to("cuda")
    out = flash_attn_func(x, x, x, causal=True)
    loss = model(out).float().mean()
    loss.backward()
    torch.cuda.synchronize()
    return loss.item()
'''


def generate(root: Path, files: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    per_package = 50
    for n in range(files):
        pkg = f"pkg{n // per_package:03d}"
        folder = root / pkg / f"sub{(n // 10) % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        template = CUDA if rng.random() < 0.125 else PLAIN
        (folder / f"mod{n:05d}.py").write_text(template.format(n=n, pkg=pkg))


def timed(action: Callable[[], object], repeat: int) -> float:
    action()  # warm the page cache and imports
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tree", help="a real project tree to scan instead of the generated one")
    args = parser.parse_args()
    if args.tree:
        real(Path(args.tree), args.repeat)
        return
    rg = shutil.which("rg")
    command = [rg, "-c", "cuda"] if rg else ["grep", "-rc", "cuda"]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "tree"
        generate(root, args.files)

        def baseline() -> None:
            subprocess.run([*command, str(root)], stdout=subprocess.DEVNULL, check=False)

        def envsnap() -> None:
            scan_tree(str(root))

        def prefilter() -> None:  # the part that is grep's work: list, read, search; no parsing
            entries, _, _ = walk(str(root))
            for entry in entries:
                data = read_capped(entry)
                if data is not None:
                    triggered(data)

        result = scan_tree(str(root))
        base = timed(baseline, args.repeat)
        ours = timed(envsnap, args.repeat)
        floor = timed(prefilter, args.repeat)
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        print(
            f"tree: {args.files} Python files, {result.files_parsed} parsed, {len(result.signals)} "
            f"signals; {cpus} CPUs"
        )
        print(f"baseline  {' '.join(command[:2])} cuda: {base * 1000:8.1f} ms")
        print(f"envsnap   scan_tree:          {ours * 1000:8.1f} ms")
        print(
            f"          of which walk+read+search (no parsing): {floor * 1000:8.1f} ms ({floor / base:.2f}x)"
        )
        print(f"ratio     {ours / base:.2f}x (target <= 3x)")


def cpu_timed(action: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds (this process and its children) of ``action``."""
    import resource

    action()
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        action()
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(
            sum(a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime for a, b in zip(after, before, strict=True))
        )
    return statistics.median(walls), statistics.median(cpus)


def real(root: Path, repeat: int) -> None:
    """The scan, and the whole ``envsnap audit`` command, of a real tree against ``rg -c`` and ``grep -rc``.

    Every baseline present is timed in the same run; the command is a subprocess like the baselines
    (interpreter start, imports, scan, judging, rendering: what a user waits for). Cold is a scan
    that parses every file with a trigger word (``--no-cache``); warm reuses the per-file results of
    the run before (the tree unchanged: a second audit, another target, CI on the same checkout). The
    cache lives in a temporary folder, never the user's; envsnap's bytecode is compiled first, as an
    install has it.
    """
    baselines = {"grep -rc cuda": ["grep", "-rc", "cuda", str(root)]}
    rg = shutil.which("rg")
    if rg:
        baselines["rg -c cuda"] = [rg, "-c", "cuda", str(root)]
    command = [
        sys.executable,
        "-m",
        "envsnap",
        "audit",
        str(root),
        "--no-env",
        "--target",
        "rocm:gfx942",
        "--json",
    ]

    # An installed envsnap has its bytecode (pip compiles at install); an editable checkout under
    # PYTHONDONTWRITEBYTECODE=1 would compile ~50 modules on every run and time the compiler instead.
    package = Path(envsnap_package.__file__).parent
    compileall.compile_dir(str(package), quiet=1)
    child_env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}

    def run(argv: list[str]) -> Callable[[], object]:
        return lambda: subprocess.run(argv, stdout=subprocess.DEVNULL, check=False, env=child_env)

    with tempfile.TemporaryDirectory() as cache_home:
        os.environ["XDG_CACHE_HOME"] = child_env["XDG_CACHE_HOME"] = cache_home
        result = scan_tree(str(root))
        base = {name: cpu_timed(run(argv), repeat) for name, argv in baselines.items()}
        timings = {
            "scan_tree, cold (in-process)": cpu_timed(lambda: scan_tree(str(root)), repeat),
            "scan_tree, warm (in-process)": cpu_timed(lambda: scan_tree(str(root), cache=True), repeat),
            "audit --no-env --no-cache": cpu_timed(run([*command, "--no-cache"]), repeat),
            "audit --no-env, warm cache": cpu_timed(run(command), repeat),
        }
    print(
        f"tree: {root} ({result.files_seen} files, {result.files_parsed} parsed, "
        f"{len(result.signals)} signals); median of {repeat}"
    )
    for name, (wall, cpu) in base.items():
        print(f"baseline  {name:30s} wall {wall:7.3f} s  cpu {cpu:7.3f} s")
    for name, (wall, cpu) in timings.items():
        print(f"envsnap   {name:30s} wall {wall:7.3f} s  cpu {cpu:7.3f} s")
    for name, (base_wall, base_cpu) in base.items():
        print(f"ratio vs {name} (target <= 10x rg):")
        for label, (wall, cpu) in timings.items():
            print(f"  {label:30s} wall {wall / base_wall:5.1f}x  cpu {cpu / max(base_cpu, 1e-3):5.1f}x")


if __name__ == "__main__":
    main()
