"""envsnap's own report (``envsnap report``), pasted back: the snapshot it carries, exactly.

Unlike the other importers this one guesses nothing: the report holds the whole snapshot in a
block (snapshot/report_block.py), so ``check``, ``show``, ``diff`` and ``tui`` on a pasted report
see the snapshot the reporter's machine produced: same fingerprint, same findings. The summary
and findings above the block are for people and are not read back.

It is tried before the "is this a snapshot file?" test, because a report's block holds
``schema:`` lines too.
"""

from __future__ import annotations

import re

from envsnap.snapshot import report_block
from envsnap.snapshot.model import Snapshot

REPORT_MARK = "envsnap report"
"""The words the report's heading (Markdown and text) and its first-line comment carry."""
FIRST_LINES = ("<!-- envsnap report:", "envsnap report (envsnap ")
"""How a report as written starts (Markdown, text): one too large to carry its snapshot still does."""


def looks_like_report(text: str) -> bool:
    """Whether ``text`` is (or holds) an ``envsnap report``, whole or cut off.

    A block's end line is enough. Without it, a block header that is quoted, or that comes after
    the report's heading, is a report cut off; a file that *starts* with the header and has no
    heading before it is a plain snapshot file.
    """
    if report_block.has_block(text) or re.sub(r"^[\ufeff\s>]+", "", text[:200]).startswith(FIRST_LINES):
        return True
    if report_block.HEADER not in text or REPORT_MARK not in text:
        return False
    found = report_block.header_line(text)
    if found is None:
        return False
    number, prefix = found
    before = report_block.lines(text)[:number]
    return bool(prefix) or any(REPORT_MARK in line for line in before)


def parse(text: str, name: str) -> Snapshot:
    """The snapshot the report carries.

    Raises:
        BadInput: the report is cut off or damaged, or its snapshot does not validate.
    """
    return report_block.decode(text, name)
