"""Score the audit's blind rounds as they were before their fixes, and with today's verdict rules.

Each blind round's trees and ground truth landed in a commit of their own, before envsnap was fixed on them.
For every round this checks that commit out (a temporary ``git worktree``), scans the round's projects with
the code of that commit, and keeps its verdicts and findings. The findings are then judged again by today's
``envsnap.audit.verdict.decide``: how a change to the verdict alone would have scored on projects envsnap had
not yet seen. Needs the repository's history (a full clone) and a Python with envsnap's dependencies.

    python scripts/score_blind_rounds.py [--rounds 23-32] [--cache runs.json] [--verbose]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
INDEX = "tests/data/projects/ports-index.yaml"
RISKS = ("lower", "moderate", "higher")
GROUPS = ((23, "rounds 23+"), (12, "rounds 12-22"), (0, "rounds 3-11"))

# Run with the old commit's code: its scan, its verdict, and the findings its verdict counted.
SCAN_AT_COMMIT = r"""
import json, re, sys
from pathlib import Path
import yaml
from envsnap.audit import audit, parse_target, scan_tree
root, header = Path(sys.argv[1]), sys.argv[2]
text = (root / "tests/data/projects/ports-index.yaml").read_text(encoding="utf-8")
start = text.index(header)
end = text.find("# Blind round", start + len(header))
names = re.findall(r"- project: (\S+)", text[start : end if end > 0 else None])
rows = {row["project"]: row for row in yaml.safe_load(text)["projects"]}
cells = []
for name in names:
    scan = scan_tree(str(root / "tests/data/projects" / name))
    for target, expected in rows[name]["expect"].items():
        report = audit(scan, None, parse_target(target))
        counted = [f for f in report.findings if getattr(f, "role", "core") == "core"]
        cells.append({
            "project": name, "target": target, "truth": expected["level"], "then": report.verdict.risk,
            "supported": list(report.verdict.supported),
            "findings": [[f.rule, f.layer, f.location, f.effort, f.risk] for f in counted],
        })
print(json.dumps(cells))
"""


def rounds_in_index() -> dict[int, str]:
    """Round number -> the header line that opens its block, as the index spells it."""
    text = (ROOT / INDEX).read_text(encoding="utf-8")
    found = re.findall(r"# (Blind round (\d+)[ :])", text)
    return {int(number): header for header, number in found}


def first_commit(header: str) -> str:
    out = subprocess.run(
        ["git", "log", "--reverse", "--format=%H", "-S", f"# {header}", "--", INDEX],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    if not out:
        raise SystemExit(f"score_blind_rounds: no commit adds '{header}' to {INDEX} (a shallow clone?)")
    return out[0]


def scan_round(number: int, header: str) -> list[dict[str, Any]]:
    commit = first_commit(header)
    with tempfile.TemporaryDirectory(prefix=f"blind{number}-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(tree), commit], cwd=ROOT, check=True)
        try:
            run = subprocess.run(
                [sys.executable, "-c", SCAN_AT_COMMIT, str(tree), f"# {header}"],
                env={"PYTHONPATH": str(tree / "src"), "PATH": "/usr/bin:/bin"},
                cwd=tmp,
                capture_output=True,
                text=True,
            )
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
    if run.returncode != 0:
        why = run.stderr.strip()[-300:]
        raise SystemExit(f"score_blind_rounds: round {number} at {commit[:7]} failed: {why}")
    cells: list[dict[str, Any]] = json.loads(run.stdout)
    for cell in cells:
        cell["round"] = number
    return cells


def judged_today(cell: dict[str, Any]) -> str:
    """Today's verdict rules over the findings the old scan counted."""
    sys.path.insert(0, str(ROOT / "src"))
    from envsnap.audit import parse_target
    from envsnap.audit.model import Finding
    from envsnap.audit.verdict import decide

    findings = [
        Finding(rule=r, layer=layer, location=loc, code="", meaning="", effort=e, risk=risk, replacement="")
        for r, layer, loc, e, risk in cell["findings"]
    ]
    target = parse_target(cell["target"])
    return decide(findings, target, supported=tuple(cell["supported"])).risk


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", default="", help="a range such as 23-32 (default: every round)")
    parser.add_argument("--cache", type=Path, help="keep the old scans in this JSON file and reuse them")
    parser.add_argument("--verbose", action="store_true", help="print every cell that changed or is wrong")
    args = parser.parse_args()
    rounds = rounds_in_index()
    if args.rounds:
        low, _, high = args.rounds.partition("-")
        rounds = {n: h for n, h in rounds.items() if int(low) <= n <= int(high or low)}
    cached: dict[str, list[dict[str, Any]]] = {}
    if args.cache and args.cache.is_file():
        cached = json.loads(args.cache.read_text(encoding="utf-8"))
    cells: list[dict[str, Any]] = []
    for number, header in sorted(rounds.items()):
        key = str(number)
        if key not in cached:
            print(f"round {number}: scanning at the commit before its fixes", file=sys.stderr)
            cached[key] = scan_round(number, header)
            if args.cache:
                args.cache.write_text(json.dumps(cached), encoding="utf-8")
        cells.extend(cached[key])
    tally: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for cell in cells:
        now = judged_today(cell)
        group = next(name for start, name in GROUPS if cell["round"] >= start)
        for name in (group, "all"):
            tally[name]["cells"] += 1
            tally[name]["then"] += cell["then"] == cell["truth"]
            tally[name]["now"] += now == cell["truth"]
            tally[name]["two off now"] += abs(RISKS.index(now) - RISKS.index(cell["truth"])) == 2
        if args.verbose and (now != cell["then"] or now != cell["truth"]):
            print(
                f"  round {cell['round']} {cell['project']} {cell['target']}: truth {cell['truth']}, "
                f"then {cell['then']}, now {now}"
            )
    for name, count in tally.items():
        print(
            f"{name}: {count['cells']} cells, right then {count['then']}, right with today's verdict "
            f"{count['now']}, two levels off {count['two off now']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
