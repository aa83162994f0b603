"""How fast is ``envsnap fleet show`` on a big fleet, and does it grow linearly? Target: 1,000 nodes < 10 s.

Part 1 (grouping): writes N synthetic node snapshots (realistic: 300 distributions each, with
Requires-Dist lines, an NVIDIA section from a real capture via tests/fakes) in 10 fingerprint
groups (one large majority, nine drifted minorities: a package bumped, one added, an environment
variable, a torch build...) plus a fleet.yaml, then times what ``fleet show`` does — load every
node file (capped read, alias scan, schema, redaction, recomputed fingerprint), group by
fingerprint, diff each minority against the majority, run the rules once per group — at 250,
500 and 1,000 nodes, and prints the times and the ratio t(1000)/t(250) (linear: about 4).
The baseline, measured in the same run, is parsing the same files with PyYAML's CSafeLoader only.

Part 2 (fan-out, optional): ``--ssh-config FILE --aliases 20`` times a real ``SshTransport`` run of
``true`` and of ``envsnap save --no-frameworks`` on that many aliases (tests/fleet/engines.Sshd
makes such a config; ``--start-sshd`` starts one itself, as root).

Run: ``python benchmarks/bench_fleet.py [--start-sshd]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import msgspec
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.diff_snapshots import make

from envsnap.fleet.group import group, load_fleet
from envsnap.fleet.index import FleetIndex, NodeRecord, write_index
from envsnap.snapshot import files, store
from envsnap.snapshot.finalize import finalize
from envsnap.snapshot.model import Package, Snapshot

GROUPS = 10


def _base(rng: random.Random) -> Snapshot:
    snapshot = make(hostname="node")
    packages = list(snapshot.packages or ())
    have = {p.name for p in packages}
    while len(packages) < 300:
        name = f"pkg-{rng.randint(0, 10**6)}"
        if name in have:
            continue
        have.add(name)
        requires = tuple(
            f"dep{rng.randint(0, 99)}>={rng.randint(0, 9)}.{rng.randint(0, 9)}" for _ in range(3)
        )
        packages.append(
            Package(name=name, version=f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.0", requires=requires)
        )
    return finalize(msgspec.structs.replace(snapshot, packages=tuple(packages)))


def _variants(base: Snapshot) -> list[Snapshot]:
    """The majority and nine drifted stacks."""
    packages = list(base.packages or ())
    variants = [base]
    for i in range(1, GROUPS):
        changed = list(packages)
        changed[i * 7] = msgspec.structs.replace(changed[i * 7], version=f"99.{i}.0")
        if i % 3 == 0:
            changed.append(Package(name=f"zz-extra-{i}", version="1.0"))
        variants.append(finalize(msgspec.structs.replace(base, packages=tuple(changed))))
    return variants


def write_fleet(folder: Path, nodes: int, variants: list[Snapshot]) -> None:
    texts = [store.dumps(v) for v in variants]
    records = []
    for n in range(nodes):
        # 91% majority, the rest spread over the nine drifted stacks
        which = 0 if n % 100 < 91 else 1 + (n % GROUPS - 1) % (GROUPS - 1)
        name = f"node{n:04d}"
        files.write_atomic(folder / f"{name}.yaml", texts[which])
        records.append(NodeRecord(name=name, status="ok", file=f"{name}.yaml"))
    write_index(
        folder, FleetIndex(collected_at="2026-12-01T00:00:00Z", transport="bench", nodes=tuple(records))
    )


def time_show(folder: Path) -> tuple[float, float, int]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    start = time.perf_counter()
    for path in folder.glob("node*.yaml"):
        yaml.load(path.read_text(), Loader=loader)
    baseline = time.perf_counter() - start
    start = time.perf_counter()
    groups = group(load_fleet(folder).nodes)
    return time.perf_counter() - start, baseline, len(groups.groups)


def bench_grouping() -> None:
    rng = random.Random(13)
    variants = _variants(_base(rng))
    times = {}
    for nodes in (250, 500, 1000):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            write_fleet(folder, nodes, variants)
            elapsed, baseline, count = time_show(folder)
            times[nodes] = elapsed
            print(
                f"fleet show, {nodes:5d} nodes x 300 packages, {count} groups: {elapsed:6.2f} s "
                f"(baseline: YAML parse only {baseline:5.2f} s, ratio {elapsed / baseline:4.2f}x)"
            )
    print(
        f"growth t(1000)/t(250) = {times[1000] / times[250]:.2f} (linear = 4.00); target t(1000) < 10 s: "
        f"{'met' if times[1000] < 10 else 'NOT met'}"
    )


def bench_fanout(config: str, aliases: int) -> None:
    from envsnap.fleet.collect import RemoteCommand
    from envsnap.fleet.ssh import SshTransport

    names = [f"node{i}" for i in range(1, aliases + 1)]
    for label, command in (
        ("true", ["true"]),
        ("envsnap save --no-frameworks", RemoteCommand(sys.executable, frameworks=False).argv()),
    ):
        transport = SshTransport(names, timeout_s=600, fanout=64, ssh_config=config)
        start = time.perf_counter()
        outputs = transport.run(command)
        elapsed = time.perf_counter() - start
        ok = sum(1 for o in outputs if o.returncode == 0)
        print(f"ssh fan-out, {aliases} aliases, {label}: {elapsed:6.2f} s ({ok}/{aliases} ok)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ssh-config", help="ssh_config whose aliases node1..nodeN reach an sshd")
    parser.add_argument("--aliases", type=int, default=20)
    parser.add_argument("--start-sshd", action="store_true", help="start a loopback sshd (root) for part 2")
    args = parser.parse_args()
    bench_grouping()
    if args.start_sshd:
        from tests.fleet.engines import Sshd

        with tempfile.TemporaryDirectory() as tmp:
            server = Sshd(Path(tmp))
            server.start({f"node{i}": [] for i in range(1, args.aliases + 1)})
            try:
                bench_fanout(str(server.config), args.aliases)
            finally:
                server.stop()
    elif args.ssh_config:
        bench_fanout(args.ssh_config, args.aliases)


if __name__ == "__main__":
    main()
