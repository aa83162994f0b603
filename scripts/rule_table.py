"""Write the rule table in the docs from ``src/envsnap/rules/data/rule_catalog.yaml``.

Every Markdown file given (default: README.md and docs/**/*.md) that holds the table (its header
row ``| id | severity | what it means | how to fix |``) gets it replaced by the one generated from
the catalog, the data ``envsnap check --list-rules`` prints. ``--check`` changes nothing and exits
1 when a table is stale (tests/rules/test_catalog.py runs the same comparison).

Run from the repository root: ``python scripts/rule_table.py [--check] [FILE...]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from envsnap.rules.catalog import markdown_table

HEADER = "| id | severity | what it means | how to fix |"
REPO = Path(__file__).resolve().parents[1]


def replace_table(text: str, table: str) -> str | None:
    """``text`` with the table starting at HEADER replaced by ``table``; None if it has no table."""
    lines = text.split("\n")
    try:
        start = lines.index(HEADER)
    except ValueError:
        return None
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "\n".join([*lines[:start], *table.rstrip("\n").split("\n"), *lines[end:]])


def default_files() -> list[Path]:
    """README.md and every Markdown file under docs/."""
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if a table is stale; write nothing")
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args(argv)
    table = markdown_table()
    stale = []
    for path in args.files or default_files():
        text = path.read_text(encoding="utf-8")
        new = replace_table(text, table)
        if new is None or new == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(new, encoding="utf-8")
    for path in stale:
        print(f"{'stale' if args.check else 'rewrote'}: {path}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
