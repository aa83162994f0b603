"""Snapshot text made safe for a terminal: control characters become visible escapes.

A snapshot is untrusted input (it may come from another machine or another person), and its
strings reach the terminal verbatim unless something stops them. An ESC in a hostname can move
the cursor, rewrite lines already printed, set the window title or plant an OSC 8 hyperlink;
C1 controls (0x80-0x9f) do the same on terminals that honour 8-bit CSI; bidirectional overrides
make text read differently from what it is. Every renderer passes snapshot-derived strings
through ``printable`` (or ``one_line`` for table cells and headings) before they are shown.
The escapes look like Python's (``\\x1b``), so what was in the file stays readable.

A single field is also capped at ``MAX_FIELD_CHARS`` (the first part, an ellipsis and the full
length): nothing real is that long, and laying out one huge word is quadratic in Rich's wrapping
(a 4 MB hostname took 39 s to ``show``).
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""C0 except tab and newline, DEL, C1, and the bidirectional embedding/override/isolate marks."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


MAX_FIELD_CHARS = 2000
"""The most of one field any renderer shows; the rest is summarized as "… (N characters)"."""


def clip(text: str, limit: int | None = MAX_FIELD_CHARS) -> str:
    """``text``, or its first ``limit`` characters, an ellipsis and the full length."""
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"


def printable(text: str, limit: int | None = MAX_FIELD_CHARS) -> str:
    """``text`` with every terminal control character replaced by a visible escape, clipped.

    Tabs and newlines are kept; ESC becomes ``\\x1b``, CSI (0x9b) ``\\x9b``, U+202E ``\\u202e``.
    ``limit=None`` keeps all of it (a pip command line, pip's own output).
    """
    return _CONTROL.sub(_escape, clip(text, limit))


def one_line(text: str, limit: int | None = MAX_FIELD_CHARS) -> str:
    """``printable`` text on one line: any run of whitespace (newlines, tabs) becomes one space."""
    return " ".join(printable(text, limit).split())
