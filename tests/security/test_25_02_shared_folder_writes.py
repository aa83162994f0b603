"""25.2. Writes into a shared output folder refuse links and files they did not write.

``fleet collect -o DIR`` writes node files and the index ``fleet.yaml`` into a folder others may
write too (a shared scratch space). A ``fleet.yaml`` planted as a symlink to ``~/.bashrc`` must
not be written through, an existing file that envsnap did not write must not be replaced, and a
hostile node's last stderr line must land in the index quoted (never a bare ``$(...)``).
The transport is the boundary here: it returns what hostile nodes sent back.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest
import yaml

from envsnap.errors import BadInput
from envsnap.fleet.collect import RemoteCommand, collect
from envsnap.fleet.transport import NodeOutput, ProgressCallback
from envsnap.snapshot import store
from tests.fakes.diff_snapshots import make

HOSTILE_LINE = "$(touch /tmp/envsnap-pwned)"


class CannedNodes:
    """What the nodes sent back (real snapshots and a failing node's stderr)."""

    name = "ssh"

    def __init__(self, outputs: Sequence[NodeOutput]) -> None:
        self.outputs = list(outputs)

    def run(self, command: Sequence[str], progress: ProgressCallback | None = None) -> list[NodeOutput]:
        return self.outputs

    def describe(self, command: Sequence[str]) -> str:
        return " ".join(command)


def _nodes() -> CannedNodes:
    good = store.dumps(make()).encode()
    return CannedNodes(
        [
            NodeOutput(node="n1", stdout=good, returncode=0, seconds=1.0),
            NodeOutput(node="n2", stderr=f"{HOSTILE_LINE}\n".encode(), returncode=1, seconds=1.0),
        ]
    )


def _collect(folder: Path) -> None:
    collect(_nodes(), folder, RemoteCommand(), collected_at="2026-12-01T00:00:00Z")


def test_a_planted_index_symlink_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    victim = tmp_path / "bashrc"
    victim.write_text("export PS1='$ '\n")
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "fleet.yaml").symlink_to(victim)
    with pytest.raises(BadInput, match=r"fleet\.yaml"):
        _collect(folder)
    assert victim.read_text() == "export PS1='$ '\n"
    assert (folder / "fleet.yaml").is_symlink()


def test_a_planted_node_file_symlink_inside_the_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    decoy = folder / "notes.txt"
    decoy.write_text("mine\n")
    (folder / "n1.yaml").symlink_to(decoy)
    with pytest.raises(BadInput, match=r"n1\.yaml"):
        _collect(folder)
    assert decoy.read_text() == "mine\n"


def test_an_existing_file_envsnap_did_not_write_is_not_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "fleet.yaml").write_text("someone else's file\n")
    with pytest.raises(BadInput, match="not written by envsnap"):
        _collect(folder)
    assert (folder / "fleet.yaml").read_text() == "someone else's file\n"


def test_collecting_again_into_the_same_folder_replaces_envsnaps_own_files(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    _collect(folder)
    first = (folder / "n1.yaml").stat().st_ino
    _collect(folder)
    assert (folder / "n1.yaml").stat().st_ino != first  # replaced (a new file), not written through
    assert sorted(p.name for p in folder.iterdir()) == ["fleet.yaml", "n1.yaml"]


def test_a_hostile_stderr_line_is_quoted_in_the_index(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    _collect(folder)
    text = (folder / "fleet.yaml").read_text()
    (line,) = [line for line in text.splitlines() if "touch" in line]
    value = line.split("reason:", 1)[1].strip()
    assert value[0] in "\"'", line  # a quoted YAML scalar, never a bare $(...)
    index = yaml.safe_load(text)
    reasons = {node["name"]: node.get("reason") for node in index["nodes"]}
    assert reasons["n2"] == HOSTILE_LINE


def test_no_temporary_file_is_left_when_a_write_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "fleet.yaml").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(BadInput):
        _collect(folder)
    leftovers = [name for name in os.listdir(folder) if name.endswith(".partial")]
    assert leftovers == []
    assert not (tmp_path / "elsewhere").exists()
