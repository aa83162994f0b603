"""safe_text: terminal control characters in snapshot text become visible escapes."""

from __future__ import annotations

import pytest

from envsnap.snapshot.safe_text import one_line, printable


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("gpu01\x1b[2J", "gpu01\\x1b[2J"),  # ESC: erase the screen
        ("x\x1b]8;;http://evil.example\x07y", "x\\x1b]8;;http://evil.example\\x07y"),  # OSC 8 hyperlink
        ("a\x9b31mb", "a\\x9b31mb"),  # C1 CSI
        ("a\x85b", "a\\x85b"),  # C1 NEL
        ("del\x7f", "del\\x7f"),
        ("nul\x00", "nul\\x00"),
        ("\u202eevil", "\\u202eevil"),  # right-to-left override
        ("tab\tand\nnewline", "tab\tand\nnewline"),  # kept
        ("H100 80GB HBM3 · ü", "H100 80GB HBM3 · ü"),  # printable text is untouched
    ],
)
def test_printable_escapes_control_characters(raw: str, shown: str) -> None:
    assert printable(raw) == shown


def test_one_line_folds_whitespace_and_escapes_the_rest() -> None:
    assert one_line("gpu01\n  --index-url\thttp://evil.example\x1b[0m") == (
        "gpu01 --index-url http://evil.example\\x1b[0m"
    )
    assert one_line("a\x1cb") == "a\\x1cb"  # str.split() would treat FS as whitespace: escaped first
