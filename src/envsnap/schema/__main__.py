"""Regenerate ``snapshot.schema.json`` from the model: ``python -m envsnap.schema``."""

from envsnap.schema import SCHEMA_FILE, render

SCHEMA_FILE.write_text(render(), encoding="utf-8")
print(SCHEMA_FILE)
