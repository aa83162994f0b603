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


# ---------------------------------------------------------------------------- Markdown

_MD_SPECIAL = re.compile(r"([\\`*_\[\]()<>|#!~&$])")
_BACKTICKS = re.compile(r"`+")


def md_text(text: str, limit: int | None = MAX_FIELD_CHARS) -> str:
    """Data as inert Markdown text, for every Markdown writer: one line, each markup character escaped.

    A backslash before every character that could start markup (links, images, raw HTML, emphasis,
    code, table pipes, headings, entities): a module key ``![x](https://evil/p.png)`` or a package
    named ``<img src=x onerror=...>`` is shown as the text it is, in the cell it was written in.
    """
    return _MD_SPECIAL.sub(r"\\\1", one_line(text, limit))


def md_code(text: str, *, in_table: bool = True, limit: int | None = MAX_FIELD_CHARS) -> str:
    """Data as one inline code span that nothing in it can end early.

    CommonMark ends a code span at the next backtick run as long as its opening one: the fence is
    one backtick longer than the longest run inside (a source line holding two backticks ended the
    old double-backtick span there), with a space inside it when the text starts or ends with a
    backtick. In a table a pipe would end the cell even inside code, so it is escaped there.
    """
    clean = one_line(text, limit)
    if in_table:
        clean = clean.replace("|", "\\|")
    longest = max((len(run) for run in _BACKTICKS.findall(clean)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if clean.startswith("`") or clean.endswith("`") else ""
    return f"{fence}{pad}{clean}{pad}{fence}"


def md_in_backticks(text: str, *, in_table: bool = True) -> str:
    """Text for a single-backtick code span the caller writes: backticks become ``'`` so none can end
    it, and in a table a pipe is escaped so it can't end the cell."""
    clean = one_line(text).replace("`", "'")
    return clean.replace("|", "\\|") if in_table else clean
