"""Hostile input through what issue 23 added to a bundle: dataclass values in ``top_calls``
(``{"fields": [...]}``) and the module tree (``modules``) that structural matching reads.

A forged field name must never reach an object's attributes (``__class__``), malformed nodes are
one-line BadInput, and module paths planted with terminal escapes print as text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import envsnap
from envsnap.errors import BadInput
from envsnap.inprocess.value_tree import MAX_DEPTH, decode, opaque_types
from tests.inprocess.round2_models import make_gpt, renamed_copy, tanh_gelu, tokens


@pytest.mark.parametrize(
    "node",
    [
        {"fields": ["Batch", [["__class__", {"value": 1}]]]},
        {"fields": ["Batch", [["not a name", {"value": 1}]]]},
        {"fields": ["Batch", [[3, {"value": 1}]]]},
        {"fields": ["Batch", [["x"]]]},
        {"fields": ["Batch", "x"]},
        {"fields": ["Batch", [["x", {"bogus": 1}]]]},
    ],
)
def test_malformed_dataclass_nodes_are_bad_input(node: dict[str, Any]) -> None:
    with pytest.raises(BadInput):
        decode(node, {}, "bundle")


def test_deeply_nested_dataclass_nodes_are_refused() -> None:
    node: dict[str, Any] = {"value": 1}
    for _ in range(MAX_DEPTH + 2):
        node = {"fields": ["Deep", [["inner", node]]]}
    with pytest.raises(BadInput, match="malformed"):
        decode(node, {}, "bundle")
    assert opaque_types(node) == []  # the walk stops at the same depth, no recursion error


def test_a_dataclass_node_decodes_to_attributes_only() -> None:
    value = decode({"fields": ["Batch", [["scale", {"value": 2.0}]]]}, {}, "bundle")
    assert value.scale == 2.0
    assert type(value).__name__ == "SimpleNamespace"  # no class is imported by name


def _record(path: Path) -> Path:
    gpt = make_gpt()
    with envsnap.record(path, model=gpt, environment="none", repeats=1, warmup=0):
        gpt(tokens())
    return path


def _edit_manifest(path: Path, edit: Any) -> None:
    manifest_path = path / "manifest.json"
    data = json.loads(manifest_path.read_text())
    edit(data)
    manifest_path.write_text(json.dumps(data))


def test_a_forged_dunder_field_in_top_calls_is_refused_in_one_line(tmp_path: Path) -> None:
    path = _record(tmp_path / "b")

    def plant(data: dict[str, Any]) -> None:
        data["top_calls"][0]["args"] = [{"fields": ["Batch", [["__class__", {"value": 1}]]]}]

    _edit_manifest(path, plant)
    with pytest.raises(BadInput, match="is not a name") as raised:
        envsnap.verify(path, model=make_gpt(), environment="none").calls  # noqa: B018
    assert "\n" not in str(raised.value)


def test_module_paths_with_terminal_escapes_print_as_text(tmp_path: Path) -> None:
    path = _record(tmp_path / "b")

    def plant(data: dict[str, Any]) -> None:
        for sig in data["modules"]:
            if sig["path"] == "h.0.attn":
                sig["path"] = "h.0.\x1b[31mattn"
        data["model"] = "GPT\x1b]0;owned\x07"

    _edit_manifest(path, plant)
    target = renamed_copy(make_gpt())  # matched by structure: the planted names are printed
    with envsnap.verify(path, model=target, environment="none", slow=None) as v:
        target(v.inputs)
    text = v.report.table()
    assert "\x1b" not in text
    assert "\x07" not in text
    assert v.report.module_match is not None
    assert "modules: modules matched by structure" in text


def test_planted_op_signatures_print_as_text_clipped_and_redacted(tmp_path: Path) -> None:
    """The op-level origin quotes the reference's op signatures from the manifest: a planted one
    with terminal escapes, Rich markup, a secret and a huge body is printed harmlessly."""
    path = _record(tmp_path / "b")
    secret = "hf_" + "Zq9Xw8Yv7U" * 4

    def plant(data: dict[str, Any]) -> None:
        for call in data["calls"]:
            if call["key"] == "h.1.mlp.gelu#0":
                call["ops"] = [
                    f"aten.gelu.default(\x1b[31m[bold red]x[/bold red]\x07 {secret} " + "A" * 100_000
                ]

    _edit_manifest(path, plant)
    target = tanh_gelu(make_gpt(), 1)
    with envsnap.verify(path, model=target, environment="none", slow=None) as v:
        target(v.inputs)
    div = v.report.first_divergence
    assert div is not None
    assert "Op level" in div.summary
    assert len(div.summary) < 5_000
    for text in (v.report.table(), v.report.to_yaml(), v.report.markdown()):
        for bad in ("\x1b", "\x07", secret):
            assert bad not in text
