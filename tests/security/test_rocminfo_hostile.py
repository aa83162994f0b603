"""The rocminfo reader (blind round 7) gets the hostile-input checks the other readers have: terminal
escapes, Rich markup, a huge field and a secret in the paste never reach the output as such."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security.conftest import run_cli

SECRET = "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"


def test_a_hostile_rocminfo_agent_is_shown_safely(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paste = (
        "  Name:                    gfx942\n"
        "  Marketing Name:          [bold red]AMD[/] \x1b[31mInstinct\x1b]0;PWNED\x07 " + "M" * 200_000 + "\n"
        "  Device Type:             GPU\n"
        f"HF_TOKEN={SECRET}\n"
    )
    path = tmp_path / "rocminfo.txt"
    path.write_text(paste)
    code, out, err = run_cli(capsys, "check", str(path))
    assert code in (0, 1), err
    assert "read rocminfo" in err  # the reader under test took the paste
    for stream in (out, err):
        assert "\x1b" not in stream
        assert "\x07" not in stream
        assert SECRET not in stream
        assert len(stream) < 100_000
