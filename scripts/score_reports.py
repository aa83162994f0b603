"""Score envsnap on the pasted-report corpus, the built-against part and the held-out part apart.

    python scripts/score_reports.py [--corpus tests/data/reports] [--verbose]

Each file is imported with format detection and judged by every rule, as ``envsnap check FILE`` does.
Per part it prints: reports, refused (no fact read: exit 2), recall (expected findings found, over the
files whose evidence is in the text), false errors (error findings not expected), healthy reports
with an error, and healthy reports warned (a warning or an error). Entries marked ``heldout: true`` in
index.yaml were kept aside while the readers were built; their score is the honest one. Entries with a
``batch`` (a later blind batch) are scored as their own part, one per batch.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from envsnap.errors import BadInput
from envsnap.importers.auto import parse_auto
from envsnap.rules import evaluate
from envsnap.snapshot.files import decode_text, read_bytes_capped
from envsnap.snapshot.finalize import finalize

NOW = "2026-01-01T00:00:00Z"


@dataclass
class Score:
    """The tallies of one part of the corpus."""

    reports: int = 0
    refused: int = 0
    wanted: int = 0
    hit: int = 0
    false_errors: int = 0
    healthy: int = 0
    healthy_errors: int = 0
    healthy_warned: int = 0
    missed: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.hit / self.wanted if self.wanted else 1.0

    def line(self, name: str) -> str:
        return (
            f"{name}: {self.reports} reports, {self.refused} refused, recall {self.recall:.3f} "
            f"({self.hit}/{self.wanted}), {self.false_errors} false error(s), "
            f"{self.healthy_errors} healthy with an error, "
            f"{self.healthy_warned}/{self.healthy} healthy warned"
        )


def judge(corpus: Path, file: str) -> frozenset[tuple[str, str]] | None:
    """The (id, severity) pairs for one file, or None when it is refused."""
    text = decode_text(read_bytes_capped(corpus / file, file), file)
    try:
        snapshot = parse_auto(text, file, captured_at=NOW)
    except BadInput:
        return None
    return frozenset((f.id, str(f.severity)) for f in evaluate(finalize(snapshot)))


def score(corpus: Path, entries: list[dict[str, Any]]) -> Score:
    """The tallies over ``entries``."""
    result = Score()
    for entry in entries:
        result.reports += 1
        found = judge(corpus, entry["file"])
        expected = frozenset((e["id"], e["severity"]) for e in entry.get("expected") or ())
        if found is None:
            result.refused += 1
            found = frozenset()
        if entry.get("evidence_visible"):
            result.wanted += len(expected)
            result.hit += len(expected & found)
            result.missed += [f"{entry['file']}: {i}/{s}" for i, s in sorted(expected - found)]
        extra = {pair for pair in found if pair[1] == "error"} - expected
        result.false_errors += len(extra)
        result.extra += [f"{entry['file']}: {i}/{s}" for i, s in sorted(found - expected)]
        if entry.get("healthy"):
            result.healthy += 1
            result.healthy_errors += any(s == "error" for _, s in found)
            result.healthy_warned += any(s in ("error", "warning") for _, s in found)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("tests/data/reports"))
    parser.add_argument("--verbose", action="store_true", help="list missed and unexpected findings")
    parser.add_argument(
        "--part",
        choices=("both", "built", "heldout"),
        default="both",
        help="score only one part (default both)",
    )
    args = parser.parse_args(argv)
    entries = yaml.safe_load((args.corpus / "index.yaml").read_text())["reports"]
    parts = {
        "built against": [e for e in entries if not e.get("heldout")],
        "held out": [e for e in entries if e.get("heldout") and not e.get("batch")],
    }
    # Each later blind batch is its own part: its first score is the honest one for that batch.
    for batch in sorted({str(e["batch"]) for e in entries if e.get("batch")}):
        parts[f"held out ({batch})"] = [e for e in entries if e.get("batch") == batch]
    for name, part in parts.items():
        if args.part != "both" and (args.part == "built") != (name == "built against"):
            continue
        result = score(args.corpus, part)
        print(result.line(name))
        if args.verbose:
            for line in result.missed:
                print(f"  missed {line}")
            for line in result.extra:
                print(f"  not expected {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
