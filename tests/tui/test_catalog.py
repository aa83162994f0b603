"""The snapshots folder listing."""

from __future__ import annotations

from pathlib import Path

from envsnap.snapshot import store
from envsnap.tui.catalog import read_entries
from tests.fakes.fake_telemetry import v100_host
from tests.tui.conftest import host_snapshot


def test_entries_with_a_broken_file(tmp_path: Path) -> None:
    store.save(host_snapshot(v100_host()), tmp_path / "a.yaml")
    (tmp_path / "b.yml").write_text("schema: 1\nmeta: [unclosed\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a snapshot", encoding="utf-8")
    good, broken = read_entries(tmp_path)
    assert (good.path.name, good.host, good.torch, good.captured_at) == (
        "a.yaml",
        "gpu-node-01",
        "2.13.0+cpu",
        "2022-09-15T13:55:33Z",
    )
    assert good.fingerprint is not None
    assert good.fingerprint.startswith("sha256:")
    assert broken.path.name == "b.yml"
    assert broken.error is not None
    assert broken.error.startswith("line 3:")
    assert "not valid YAML" in broken.error


def test_missing_folder_lists_nothing(tmp_path: Path) -> None:
    assert read_entries(tmp_path / "absent") == ()
