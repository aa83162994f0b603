"""Regenerate ``snapshot.schema.json`` from the model: ``python -m envsnap.schema [--check]``.

``--check`` writes nothing and exits 1 when the shipped file is stale.
"""

import sys

from envsnap.schema import SCHEMA_FILE, render

args = sys.argv[1:]
if args == ["--check"]:
    stale = SCHEMA_FILE.read_text(encoding="utf-8") != render()
    print(f"{SCHEMA_FILE}: {'stale' if stale else 'up to date'}")
    sys.exit(1 if stale else 0)
if args:
    print("usage: python -m envsnap.schema [--check]", file=sys.stderr)
    sys.exit(2)
SCHEMA_FILE.write_text(render(), encoding="utf-8")
print(SCHEMA_FILE)
