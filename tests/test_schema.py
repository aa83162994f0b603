"""The shipped JSON Schema is generated from the model and accepts real snapshots."""

from __future__ import annotations

import jsonschema  # type: ignore[import-untyped]
import msgspec
import pytest

from envsnap import schema
from tests.factories import make_snapshot


def test_shipped_schema_matches_the_model() -> None:
    assert schema.SCHEMA_FILE.read_text(encoding="utf-8") == schema.render(), (
        "snapshot.schema.json is stale: run `python -m envsnap.schema`"
    )


def test_schema_validates_a_snapshot_and_rejects_a_wrong_type() -> None:
    document = msgspec.json.decode(msgspec.json.encode(make_snapshot()))
    jsonschema.validate(document, schema.load())
    document["packages"][0]["version"] = 2
    with pytest.raises(jsonschema.ValidationError) as caught:
        jsonschema.validate(document, schema.load())
    assert list(caught.value.absolute_path) == ["packages", 0, "version"]
