"""Parsing only the part of a long module that can hold a signal.

Parsing is most of the scan's cost, and in a large module the trigger words sit in a few
functions or classes: the top-level statements that hold one are parsed (plus the imports), each
run of adjacent ones in one call, with the other lines left blank so the line numbers stay; in a
long class only the members that hold one are kept. Whatever does not split cleanly is parsed whole.
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings

_CONTINUES = ("else", "elif ", "except", "finally", ")", "]", "}", "#")
_TRIPLE = re.compile(r"\"\"\"|'''")
CHUNK_MIN_LINES = 400
"""Below this size a module is parsed whole: splitting it saves nothing."""
CLASS_SPLIT_LINES = 80
"""A class this long is parsed with only the members that hold a trigger token (a model class is
hundreds of lines for one ``.cuda()``)."""
_INDENTED = frozenset(("", " ", "\t", "\n", "\r", "\x0b", "\x0c"))
"""First characters of a line that is blank or indented (``str.isspace`` of the first character)."""


def parse_quietly(source: str, relative: str) -> ast.Module:
    """``ast.parse`` with the compiler's warnings about the file (``"\\:"``, an invalid escape: a
    SyntaxWarning from Python 3.12, a DeprecationWarning before) kept out of envsnap's output: the
    file is the user's, the warning is not envsnap's to print."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, filename=relative)


def parse_hot(text: str, lines: list[str], relative: str, hot: list[int]) -> ast.Module:
    """The syntax tree of the top-level statements that hold a trigger token, plus the imports.

    Parsing is most of the scan's cost, and in a large module the trigger words sit in a few
    functions or classes: the top-level statements (a line at column 0 that does not continue the
    one before) that matter are parsed, each run of adjacent ones in one call, with the other lines
    left blank so the line numbers stay; in a long class only the members that matter are kept.
    Whatever does not split cleanly (a string literal spanning column-0 lines) is parsed whole.
    """
    if len(lines) < CHUNK_MIN_LINES:
        return parse_quietly(text, relative)
    body: list[ast.stmt] = []
    run: list[str] = []
    run_first = 0
    strings = _StringLines(lines)
    bounds = _statement_bounds(lines, strings)
    for number, (first, end) in enumerate(bounds):
        # A top-level `try:` is most often an import guard (`try: from .triton import gemm except
        # ImportError`): kept, so the optional modules it names are seen (scanners.python._optional_module).
        if _holds(hot, first, end) or lines[first - 1].startswith(("import ", "from ", "try:")):
            if not run:
                run_first = first
            run.append(_class_source(lines, first, end, hot, strings))
            if number + 1 < len(bounds):
                continue
        if run:
            try:
                # Newlines in front keep the line numbers (cheaper than ast.increment_lineno's walk).
                body.extend(parse_quietly("\n" * (run_first - 1) + "".join(run), relative).body)
            except SyntaxError:
                return parse_quietly(text, relative)
            run = []
    return ast.Module(body=body, type_ignores=[])


def _statement_bounds(lines: list[str], inside: _StringLines) -> list[tuple[int, int]]:
    """``(first, end)`` line numbers of each top-level statement, decorators included."""
    candidates = [
        number
        for number, line in enumerate(lines, 1)
        if line[:1] not in _INDENTED and not line.startswith(_CONTINUES) and number not in inside
    ]
    # A decorator's statement goes on to the next column-0 line (the def or class it decorates).
    starts = [
        number
        for index, number in enumerate(candidates)
        if not index or not lines[candidates[index - 1] - 1].startswith("@")
    ]
    return list(zip(starts, [*starts[1:], len(lines) + 1], strict=False))


class _StringLines:
    """The lines that continue a triple-quoted string (its text at column 0 is no statement).

    Kept as spans (a docstring-heavy module is mostly string lines), asked line by line.
    Quotes are paired in order, which a triple quote inside a comment or a one-line string can
    mislead: a chunk cut wrong then fails to parse and the file is parsed whole.
    """

    def __init__(self, lines: list[str]) -> None:
        self.opens: list[int] = []
        self.closes: list[int] = []
        opened = ""
        for number in [n for n, line in enumerate(lines, 1) if '"""' in line or "'''" in line]:
            for match in _TRIPLE.finditer(lines[number - 1]):
                if not opened:
                    opened = match.group()
                    self.opens.append(number)
                elif match.group() == opened:
                    self.closes.append(number)
                    opened = ""
        if opened:
            self.opens.pop()

    def __contains__(self, line: int) -> bool:
        index = bisect.bisect_left(self.opens, line) - 1
        return index >= 0 and self.closes[index] >= line


def _holds(hot: list[int], first: int, end: int) -> bool:
    index = bisect.bisect_left(hot, first)
    return index < len(hot) and hot[index] < end


def _defines_class(lines: list[str], first: int, end: int) -> bool:
    """Whether the statement at ``first`` is a class, its decorators passed over.

    A decorated function is no class: splitting its body into "members" blanked the statements without a
    trigger, its own imports among them (torchani 2.9's ``@main.command(...) def _build_extensions``
    imports ``load`` from torch.utils.cpp_extension, then JIT-builds CUDA sources with it; #22 round 51).
    """
    for number in range(first, end):
        line = lines[number - 1]
        if line[:1] not in _INDENTED and not line.startswith(("@", ")", "#")):
            return line.startswith("class ")
    return False


def _class_source(lines: list[str], first: int, end: int, hot: list[int], strings: _StringLines) -> str:
    """Lines ``first``..``end`` - 1; of a long class, the members without a trigger left blank.

    A member is a statement at the body's indentation (a method with its decorators, a field, the
    docstring); the class header and the members holding a trigger are kept.
    """
    whole = "".join(lines[first - 1 : end - 1])
    if end - first < CLASS_SPLIT_LINES or not _defines_class(lines, first, end):
        return whole
    header_end = next(
        (
            number
            for number in range(first, end)
            if lines[number - 1].startswith(("class ", ")")) and lines[number - 1].rstrip().endswith(":")
        ),
        None,
    )
    if header_end is None:
        return whole
    body = next((n for n in range(header_end + 1, end) if lines[n - 1].strip()), None)
    if body is None:
        return whole
    indent = lines[body - 1][: len(lines[body - 1]) - len(lines[body - 1].lstrip())]
    if not indent:
        return whole
    starts: list[int] = []
    decorated = False
    for number in range(body, end):
        line = lines[number - 1]
        if (
            not line.startswith(indent)
            or line[len(indent) : len(indent) + 1] in _INDENTED
            or line.startswith(_CONTINUES, len(indent))
            or number in strings
        ):
            continue
        if not decorated:
            starts.append(number)
        decorated = line.startswith("@", len(indent))
    if not starts:
        return whole
    members = list(zip(starts, [*starts[1:], end], strict=False))
    wanted = [_holds(hot, start, stop) for start, stop in members]
    if not any(wanted):
        wanted[0] = True  # a class needs a body; the hot line is in its header
    kept = lines[first - 1 : starts[0] - 1]
    for (start, stop), keep in zip(members, wanted, strict=True):
        kept.append("".join(lines[start - 1 : stop - 1]) if keep else "\n" * (stop - start))
    return "".join(kept)
