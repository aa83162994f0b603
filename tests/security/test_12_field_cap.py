"""12. No renderer shows more than ``MAX_FIELD_CHARS`` of one field: an ellipsis and the full length instead.

Laying out one huge word is quadratic in Rich (a 4 MB hostname took 39 s to ``show``), so a
capped field is also what keeps these commands fast; the test only checks what is shown.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from envsnap.snapshot import store
from envsnap.snapshot.safe_text import MAX_FIELD_CHARS
from envsnap.tui.messages import SnapshotCollected
from envsnap.tui.safe import MAX_TUI_FIELD_CHARS
from tests.fakes.diff_snapshots import make
from tests.security.conftest import run_cli

HUGE = "h" * 4_000_000


def _huge(tmp_path: Path) -> Path:
    """A snapshot whose hostname and torch version are each 4 MB long."""
    snapshot = make()
    assert snapshot.host is not None
    assert snapshot.packages is not None
    torch = next(i for i, p in enumerate(snapshot.packages) if p.name == "torch")
    packages = list(snapshot.packages)
    packages[torch] = msgspec.structs.replace(packages[torch], version=HUGE)
    huge = msgspec.structs.replace(
        snapshot, host=msgspec.structs.replace(snapshot.host, hostname=HUGE), packages=tuple(packages)
    )
    path = tmp_path / "huge.yaml"
    path.write_text(store.dumps(huge))
    return path


def test_text_renderers_show_a_clipped_field_and_its_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _huge(tmp_path)
    clean = tmp_path / "clean.yaml"
    clean.write_text(store.dumps(make()))
    for argv in (
        ["show", str(path)],
        ["diff", str(clean), str(path)],
        ["diff", str(clean), str(path), "--format", "markdown"],
        ["report", str(path), "--format", "text"],
    ):
        code, out, _ = run_cli(capsys, *argv)
        assert code in (0, 1), argv
        assert len(out) < 40_000, argv  # 4 MB went in; what is shown is bounded
        compact = re.sub(r"[\s│┃|]", "", out)  # Rich folds a long field over many lines of the table
        assert max(len(run) for run in re.findall("h+", compact)) <= MAX_FIELD_CHARS + 5, argv
        assert re.search(r"\(40000\d\dcharacters\)", compact), argv


def test_the_tui_gets_the_field_clipped() -> None:
    snapshot = make()
    assert snapshot.host is not None
    huge = msgspec.structs.replace(snapshot, host=msgspec.structs.replace(snapshot.host, hostname=HUGE))
    shown = SnapshotCollected(huge).snapshot
    assert shown.host is not None
    assert shown.host.hostname is not None
    assert len(shown.host.hostname) < MAX_TUI_FIELD_CHARS + 40
    assert shown.host.hostname.endswith("(4000000 characters)")
