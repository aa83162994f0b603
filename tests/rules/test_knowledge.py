"""The knowledge base: every file loads with the safe loader, every row names its source."""

from __future__ import annotations

from typing import Any

import pytest

from envsnap.rules import knowledge


def _rows(value: Any) -> list[dict[str, Any]]:
    """Every mapping inside a list anywhere in the document (the table rows)."""
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        for item in value.values():
            found += _rows(item)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                found.append(item)
                found += _rows(item)
    return found


@pytest.mark.parametrize("name", knowledge.DATA_FILES)
def test_every_row_has_a_source_url(name: str) -> None:
    rows = _rows(knowledge.raw(name))
    assert rows, name
    for row in rows:
        assert str(row.get("source", "")).startswith("https://"), (name, row)


def test_typed_tables_convert() -> None:
    assert knowledge.driver_minimums()[0].cuda == "13.3"
    assert {f.family: f.linux for f in knowledge.family_floors()} == {
        13: "580.65.06",
        12: "525.60.13",
        11: "450.80.02",
    }
    assert knowledge.sass_compat()["8.0"].except_ == ("8.7",)
    assert knowledge.cudnn_floor().min_cc == "7.5"
    assert (
        knowledge.bundled_libraries()[0].lib != "libcublas"
    )  # longest stems first: libcublasLt before libcublas
    assert "torchvision" in knowledge.companions().names
    assert knowledge.throttle_reasons()["sw_power_cap"].severity == "info"
    assert knowledge.datacenter().regex.search("NVIDIA H100 80GB HBM3")
    assert not knowledge.datacenter().regex.search("NVIDIA RTX A4000")
    assert knowledge.namespace_imports() >= {"nvidia", "jax_plugins"}


def test_files_are_parsed_once() -> None:
    knowledge.raw.cache_clear()
    knowledge.raw("rocm")
    knowledge.raw("rocm")
    info = knowledge.raw.cache_info()
    assert (info.misses, info.hits) == (1, 1)
