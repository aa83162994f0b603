"""The example snapshots committed under snapshots/ load, keep their fingerprint, and can be checked."""

from __future__ import annotations

import pytest

from envsnap.rules import evaluate
from envsnap.snapshot import store
from envsnap.snapshot.fingerprint import fingerprint
from tests.conftest import REPO_ROOT

EXAMPLES = sorted((REPO_ROOT / "snapshots").glob("*.yaml"))


def test_there_is_an_example() -> None:
    assert EXAMPLES, "snapshots/ should hold at least the development machine's snapshot"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_round_trips_and_is_consistent(path: object) -> None:
    assert hasattr(path, "read_text")
    snapshot = store.load(path)  # type: ignore[arg-type]
    assert store.loads(store.dumps(snapshot)) == snapshot
    assert snapshot.fingerprint == fingerprint(snapshot)
    assert snapshot.meta.anonymized is True
    assert {f.id for f in snapshot.findings or ()} == {f.id for f in evaluate(snapshot)}
