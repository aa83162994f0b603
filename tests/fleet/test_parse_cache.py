"""SectionCache: the same snapshots as store.load, each distinct section parsed once."""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.errors import BadInput
from envsnap.fleet.parse_cache import SectionCache
from envsnap.snapshot import store
from envsnap.snapshot.model import SCHEMA_VERSION
from tests.fakes.diff_snapshots import make


def test_same_result_as_store_load_and_sections_reused(tmp_path: Path) -> None:
    cache = SectionCache()
    paths = [store.save(make(hostname=f"gpu{i}"), tmp_path / f"{i}.yaml") for i in range(3)]
    for path in paths:
        assert cache.load(path) == store.load(path)
    assert cache.hits > cache.misses  # packages, python, ... parsed once for three files


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("schema: 1\nmeta: &m {envsnap_version: x, captured_at: y}\nhost: *m\n", "anchors are not allowed"),
        ("schema: 1\nmeta: {envsnap_version: x,\ncaptured_at: y}\n", None),  # flow at column 0: whole parse
        (f"schema: 1\nschema: {SCHEMA_VERSION + 1}\n", "duplicate key 'schema'"),  # refused (security item 8)
    ],
)
def test_odd_documents_fall_back_to_the_whole_file_parser(
    tmp_path: Path, text: str, error: str | None
) -> None:
    path = tmp_path / "odd.yaml"
    path.write_text(text)
    if error is None:
        assert SectionCache().load(path) == store.load(path)
        return
    with pytest.raises(BadInput, match=error):
        SectionCache().load(path)
    with pytest.raises(BadInput, match=error):
        store.load(path)


def test_checked_reuse_matches_checking_each_file(tmp_path: Path) -> None:
    from envsnap.snapshot.finalize import checked

    secret = "hf_" + "q" * 34
    cache = SectionCache()
    for i in range(3):
        path = store.save(make(hostname=f"gpu{i}", variables={"HF_TOKEN": "x"}), tmp_path / f"{i}.yaml")
        path.write_text(path.read_text().replace("gpu", f"{secret} gpu", 1))  # a secret in meta or host
        assert cache.load_checked(path) == checked(store.load(path))
        assert secret not in store.dumps(cache.load_checked(path)[0])
