"""Imports that choose between two implementations of the same names: ``if flag: from .a import f`` /
``else: from .b import f``.

Read from the text, like python_local: the file holding the choice often has no trigger token (ccvfi's
``DRBA.__init__`` picks ``softsplat`` (CuPy kernels) or ``softsplat_torch`` by ``support_cupy``), and a
class of 80+ lines is parsed only in the members that hold one. A branch is a twin of another when a name
it binds from an import is bound by the other branch too, by an import or an assignment (BigVGAN's
``Activation1d = CudaActivation1d`` after the lazy import, ``Activation1d = TorchActivation1d`` in the
``else``): the module one branch imports is one of two implementations, and the project runs the other
where it is not chosen.
"""

from __future__ import annotations

import re

_IF = re.compile(r"^([ \t]*)(?:if|elif)[ \t]+(.*):[ \t]*(?:#.*)?$")
_ELSE = re.compile(r"^([ \t]*)(?:else|elif[ \t].*):[ \t]*(?:#.*)?$")
_FROM = re.compile(r"^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+\(?([\w \t,]*)\)?[ \t]*(?:#.*)?$")
_ASSIGN = re.compile(r"^[ \t]*([A-Za-z_]\w*)[ \t]*=[ \t]*([A-Za-z_][\w.]*)[ \t]*(?:#.*)?$")
_DEVICE_TEST = re.compile(r"is_available|device|\.type\b|torch\.version")
"""A chooser that tests the device or CUDA's presence: a ROCm torch answers it as CUDA does."""
MAX_LINES = 20_000
"""Longer files are left unread: the choices found so far sit in model and layer modules of a few hundred
lines; a generated module is read by nothing here."""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _bound(lines: list[str]) -> tuple[set[str], set[str]]:
    """(names bound from an import, or from such a name; every name bound) in a branch's own statements."""
    imported: set[str] = set()
    bound: set[str] = set()
    for line in lines:
        found = _FROM.match(line)
        if found is not None:
            for part in found.group(1).split(","):
                words = part.split()
                if words and words[-1].isidentifier():
                    imported.add(words[-1])  # `X as Y` binds Y
                    bound.add(words[-1])
            continue
        assigned = _ASSIGN.match(line)
        if assigned is not None:
            bound.add(assigned.group(1))
            if assigned.group(2) in imported:
                imported.add(assigned.group(1))
    return imported, bound


def _statements(branch: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """A branch's own statements (one level in, not nested blocks), a parenthesised import joined into one."""
    if not branch:
        return []
    level = _indent(branch[0][1])
    joined: list[tuple[int, str]] = []
    index = 0
    while index < len(branch):
        number, line = branch[index]
        index += 1
        if _indent(line) != level:
            continue
        if "import" in line and "(" in line and ")" not in line:
            parts = [line]
            while index < len(branch) and ")" not in parts[-1] and len(parts) < MAX_JOINED:
                parts.append(branch[index][1].strip())
                index += 1
            line = " ".join(parts)
        joined.append((number, line))
    return joined


MAX_JOINED = 64
"""Lines of one parenthesised import read at most."""


def twin_import_lines(text: str) -> dict[int, bool]:
    """Line numbers (1-based) of the ``from ... import`` lines in the branches of a twin choice, each with
    whether the choice tests the device (``torch.cuda.is_available()``, ``x.device.type == "cuda"``)."""
    lines = text.splitlines()
    if len(lines) > MAX_LINES or "else:" not in text:
        return {}
    found: dict[int, bool] = {}
    number = 0
    while number < len(lines):
        head = _IF.match(lines[number])
        if head is None or head.group(0).lstrip().startswith("elif"):
            number += 1
            continue
        depth = len(head.group(1))
        device = bool(_DEVICE_TEST.search(head.group(2)))
        branches: list[list[tuple[int, str]]] = []
        current: list[tuple[int, str]] = []
        cursor = number + 1
        while cursor < len(lines):
            line = lines[cursor]
            if not line.strip() or line.lstrip().startswith("#"):
                cursor += 1
                continue
            if _indent(line) > depth:
                current.append((cursor, line))
                cursor += 1
                continue
            if _indent(line) == depth and _ELSE.match(line):
                device = device or bool(_DEVICE_TEST.search(line))
                branches.append(current)
                current = []
                cursor += 1
                continue
            break
        branches.append(current)
        if len(branches) > 1:
            own = [_statements(branch) for branch in branches]
            names = [_bound([line for _, line in branch]) for branch in own]
            for index, (imported, _) in enumerate(names):
                others = set().union(*(bound for other, (_, bound) in enumerate(names) if other != index))
                if imported & others:
                    for n, line in own[index]:
                        if _FROM.match(line):
                            found[n + 1] = device
        number += 1
    return found
