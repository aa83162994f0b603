"""Which of the project's own modules a Python file imports, and whether at the top of the file.

Read from the text, before and without the syntax tree: most files hold no trigger token and are never
parsed, yet their imports decide whether another module is loaded eagerly (across_files._feature_modules).
An import at column 0 runs when the file is imported; an indented one sits in a function, a class, an
``if`` or a ``try`` and runs only when that block does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envsnap.audit.model import Signal

_FROM_IMPORT = re.compile(rb"^([ \t]*)from[ \t]+(\.*)([A-Za-z_][\w.]*)?[ \t]+import\b", re.MULTILINE)
"""``from .bnb import X`` / ``from peft.utils import x``; [ \\t]* rather than \\s* keeps the scan linear."""
MAX_NAME = 200
TOP = "module-level=1"


def local_imports(relative: str, data: bytes) -> Iterator[Signal]:
    """``local-import`` signals: the path (no suffix) of each project module the file imports from.

    Relative imports resolve against the file's folder; an absolute one counts when its top-level name is
    a folder above the file (``from peft.utils import x`` in ``peft/tuners/lora/model.py``).
    """
    folders = relative.split("/")[:-1]
    line, counted = 1, 0
    for match in _FROM_IMPORT.finditer(data):
        indent, dots, name = match.group(1), len(match.group(2)), (match.group(3) or b"")
        if len(name) > MAX_NAME or not (dots or name):
            continue
        path = _resolve(folders, dots, name.decode("ascii", "replace"))
        if path is None:
            continue
        line += data.count(b"\n", counted, match.start())  # from the last match on: linear in the file
        counted = match.start()
        yield Signal(
            kind="local-import",
            layer="source",
            file=relative,
            line=line,
            subject=path,
            guarded=bool(indent),
            detail=() if indent else (TOP,),
        )


def _resolve(folders: list[str], dots: int, name: str) -> str | None:
    parts = [part for part in name.split(".") if part]
    if dots:
        if dots - 1 > len(folders) or not parts:
            return None
        return "/".join([*folders[: len(folders) - (dots - 1)], *parts])
    if not parts or parts[0] not in folders:
        return None
    return "/".join([*folders[: folders.index(parts[0])], *parts])
