"""The findings changed after blind round 12 (rocm-gfx-unsupported on a bare rocminfo, one companion finding
per torchvision of another release) carry text from the paste (a GPU's marketing name, a package line) into
their titles: terminal escapes, Rich markup, a huge field and a secret in the paste never reach the output
as such, and the finding is still made (rocminfo's marketing name is clipped to 80 characters, as the
other readers' GPU names are)."""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.rules import evaluate
from envsnap.snapshot.finalize import finalize
from tests.rules.pasted import snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

PASTES = {
    "rocminfo-rdna2": (
        "*******\nAgent 2\n*******\n"
        "  Name:                    gfx1032\n"
        f"  Marketing Name:          AMD Radeon {HOSTILE}\n"
        "  Vendor Name:             AMD\n"
        "  Device Type:             GPU\n"
        f"HF_TOKEN={SECRET}\n"
    ),
    "pip-show-companion": (
        "pip show torch\nName: torch\nVersion: 2.4.0+cu121\n"
        f"Summary: {HOSTILE}\n\n"
        "pip show torchvision\nName: torchvision\nVersion: 0.20.1+cu124\n"
        f"Summary: {HOSTILE[:300]}\nHF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_hostile_rocminfo_still_gives_the_gfx_warning_with_a_bounded_title() -> None:
    found = [
        f for f in evaluate(finalize(snapshot_of(PASTES["rocminfo-rdna2"]))) if f.id == "rocm-gfx-unsupported"
    ]
    assert len(found) == 1
    assert "gfx1032" in found[0].title
    assert len(found[0].title) < 400
