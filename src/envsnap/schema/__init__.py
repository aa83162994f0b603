"""The JSON Schema of the snapshot file, generated from the model (never edited by hand).

``snapshot.schema.json`` ships in the package for other tools (editors, CI validators). A test
checks that the committed file equals what the model generates; after a model change, regenerate
it with ``python -m envsnap.schema``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from envsnap.snapshot.model import SCHEMA_VERSION, Snapshot

SCHEMA_FILE = Path(__file__).with_name("snapshot.schema.json")


def generate() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a snapshot file, from the model."""
    schema = msgspec.json.schema(Snapshot)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"envsnap snapshot, schema {SCHEMA_VERSION}"
    return schema


def render() -> str:
    """The schema as the text committed in ``snapshot.schema.json``."""
    return json.dumps(generate(), indent=2, sort_keys=True) + "\n"


def load() -> dict[str, Any]:
    """The shipped schema file."""
    data: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return data
