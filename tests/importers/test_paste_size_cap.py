"""Every command that reads a pasted report refuses one over the paste cap in one line, exit 2.

A 40 MB paste once ran for more than ten minutes; the readers are linear now, but nothing real is
that big, so check/show/diff/import refuse it before reading a line (importers.MAX_PASTE_CHARS).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap import cli
from envsnap.importers import MAX_PASTE_CHARS

REAL_LINE = (
    "Oct 04 13:19:39 llm sd-webui-forge-start[394]: NVIDIA GeForce RTX 5090 with CUDA capability sm_120\n"
)
"""A real journald line (tests/data/reports/sdwebui-nix-9-...): the paste is real lines, repeated."""


@pytest.fixture(scope="module")
def huge_paste(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("paste") / "huge-paste.txt"
    path.write_text(REAL_LINE * (MAX_PASTE_CHARS // len(REAL_LINE) + 1000))
    return path


@pytest.mark.parametrize(
    "argv",
    [["check"], ["show"], ["import", "auto"], ["diff"]],
    ids=["check", "show", "import", "diff"],
)
def test_a_paste_over_the_cap_is_refused_in_one_line(
    argv: list[str], huge_paste: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(huge_paste), str(huge_paste)] if argv == ["diff"] else [str(huge_paste)]
    code = cli.run([*argv, *files])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1, err
    assert "refusing it" in err or "larger than" in err
    assert "Traceback" not in err
