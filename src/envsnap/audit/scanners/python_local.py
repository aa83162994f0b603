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

_FROM_IMPORT = re.compile(
    rb"^([ \t]*)from[ \t]+(\.*)([A-Za-z_][\w.]*)?[ \t]+import\b[ \t]*\(?([\w \t,]*)", re.MULTILINE
)
"""``from .bnb import X`` / ``from peft.utils import x``; [ \\t]* rather than \\s* keeps the scan linear. The
last group is the names on the import's first line (``intmm_triton`` of ``from torchao.kernel import
intmm_triton``), which may be submodules."""
MAX_NAMES = 64
MAX_NAME = 200
TOP = "module-level=1"
SCRIPT = "script=1"
"""Beside TOP: the importing file is a script (a top-level ``if __name__ == "__main__":``)."""
_MAIN_BLOCK = re.compile(rb"""^if\s+__name__\s*==\s*["']__main__["']\s*:""", re.MULTILINE)


def local_imports(relative: str, data: bytes, *, submodules: bool = False) -> Iterator[Signal]:
    """``local-import`` signals: the path (no suffix) of each project module the file imports from.

    Relative imports resolve against the file's folder; an absolute one counts when its top-level name is
    a folder above the file (``from peft.utils import x`` in ``peft/tuners/lora/model.py``). With
    ``submodules``, each imported name is also a candidate module under that path: ``from torchao.kernel
    import intmm_triton`` loads ``torchao/kernel/intmm_triton.py`` (a name that is no module matches no file).
    """
    folders = relative.split("/")[:-1]
    line, counted = 1, 0
    top = (TOP, SCRIPT) if b"__main__" in data and _MAIN_BLOCK.search(data) else (TOP,)
    for match in _FROM_IMPORT.finditer(data):
        indent, dots, name = match.group(1), len(match.group(2)), (match.group(3) or b"")
        if len(name) > MAX_NAME or not (dots or name):
            continue
        path = _resolve(folders, dots, name.decode("ascii", "replace"))
        paths = [path] if path is not None else []
        if submodules:
            paths += _submodules(folders, dots, name.decode("ascii", "replace"), match.group(4))
        if not paths:
            continue
        line += data.count(b"\n", counted, match.start())  # from the last match on: linear in the file
        counted = match.start()
        for each in paths:
            yield Signal(
                kind="local-import",
                layer="source",
                file=relative,
                line=line,
                subject=each,
                guarded=bool(indent),
                detail=() if indent else top,
            )


def local_module(relative: str, dots: int, name: str) -> str | None:
    """The path (no suffix) of the project module ``from <dots><name> import ...`` in ``relative`` names."""
    return _resolve(relative.split("/")[:-1], dots, name)


def _submodules(folders: list[str], dots: int, name: str, names: bytes) -> list[str]:
    """The imported names as modules under the imported path (``from . import x`` too)."""
    base = _resolve(folders, dots, f"{name}._") if name or dots else None
    if base is None:
        return []
    base = base.removesuffix("/_")
    found = []
    for part in names.split(b",")[:MAX_NAMES]:
        words = part.decode("ascii", "replace").split()
        if words and len(words[0]) <= MAX_NAME and words[0].isidentifier():
            found.append(f"{base}/{words[0]}")
    return found


def _resolve(folders: list[str], dots: int, name: str) -> str | None:
    parts = [part for part in name.split(".") if part]
    if dots:
        if dots - 1 > len(folders) or not parts:
            return None
        return "/".join([*folders[: len(folders) - (dots - 1)], *parts])
    if not parts or parts[0] not in folders:
        return None
    return "/".join([*folders[: folders.index(parts[0])], *parts])
