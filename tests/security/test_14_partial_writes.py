"""14. A killed save leaves no ``.X.yaml.<rand>.partial`` behind for long; Ctrl-C aborts a save cleanly."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from envsnap.snapshot import files


def _partials(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


def test_stale_partials_of_the_same_target_are_removed_on_the_next_save(tmp_path: Path) -> None:
    target = tmp_path / "snap.yaml"
    old = time.time() - 3600
    stale = tmp_path / ".snap.yaml.ab12cd_3.partial"
    fresh = tmp_path / ".snap.yaml.zz99yy88.partial"  # a concurrent save in flight: too young
    other_target = tmp_path / ".other.yaml.ab12cd34.partial"
    not_ours = tmp_path / ".snap.yaml.notours-name.partial"
    for path in (stale, fresh, other_target, not_ours):
        path.write_text("half a snapshot")
    for path in (stale, other_target, not_ours):
        os.utime(path, (old, old))
    files.write_atomic(target, "schema: 1\n")
    assert target.read_text() == "schema: 1\n"
    assert _partials(tmp_path) == sorted([fresh.name, other_target.name, not_ours.name])


@pytest.mark.parametrize("where", ["fchmod", "fsync", "replace"])
def test_ctrl_c_during_a_save_aborts_and_leaves_no_partial(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "snap.yaml"
    target.write_text("old\n")

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    if where == "fchmod":
        monkeypatch.setattr(os, "fchmod", interrupted)
    elif where == "fsync":
        monkeypatch.setattr(os, "fsync", interrupted)
    else:
        monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write_atomic(target, "new\n")
    monkeypatch.undo()
    assert target.read_text() == "old\n"
    assert _partials(tmp_path) == []
