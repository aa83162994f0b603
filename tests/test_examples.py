"""The example snapshots committed under snapshots/examples/ load, keep their fingerprint, and can be checked.

Only that folder: ``envsnap save`` run in the checkout writes ``snapshots/<host>-<time>.yaml``
(ignored by git), and a user's own saves are neither anonymized nor part of the suite.
"""

from __future__ import annotations

import subprocess

import pytest

from envsnap.rules import evaluate
from envsnap.snapshot import store
from envsnap.snapshot.fingerprint import fingerprint
from tests.conftest import REPO_ROOT

EXAMPLES = sorted((REPO_ROOT / "snapshots" / "examples").glob("*.yaml"))


def test_there_is_an_example() -> None:
    assert EXAMPLES, "snapshots/examples/ should hold at least the development machine's snapshot"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_round_trips_and_is_consistent(path: object) -> None:
    assert hasattr(path, "read_text")
    snapshot = store.load(path)  # type: ignore[arg-type]
    assert store.loads(store.dumps(snapshot)) == snapshot
    assert snapshot.fingerprint == fingerprint(snapshot)
    assert snapshot.meta.anonymized is True
    assert {f.id for f in snapshot.findings or ()} == {f.id for f in evaluate(snapshot)}


def test_user_saves_in_the_checkout_are_ignored_by_git_but_examples_are_not() -> None:
    # `pip install . && envsnap save` in the repository root must not show up in `git status`.
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout (an sdist or installed copy): .gitignore does not apply")
    user_save = "snapshots/gpu-node-01-20260101T000000Z.yaml"
    example = "snapshots/examples/new-example.yaml"
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", user_save, example],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.split() == [user_save], done.stderr


def test_examples_folder_is_the_only_thing_tracked_under_snapshots() -> None:
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout (an sdist or installed copy)")
    tracked = subprocess.run(
        ["git", "ls-files", "snapshots"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked
    assert all(name.startswith("snapshots/examples/") for name in tracked), tracked
