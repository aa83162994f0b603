"""Guards that come from callers, found over a whole module once the visitor has walked it.

A helper or method that every caller reaches only under a guard runs only where the guard passes,
and a function that returns False unless a device test passed is itself a guard. These passes read
what the visitor (python.py) collected: the functions and methods holding signals, the guarded call
sites, and the module's lines.
"""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from typing import TYPE_CHECKING

import msgspec

from envsnap.audit.scanners.python_chunks import CHUNK_MIN_LINES, parse_hot
from envsnap.audit.scanners.python_shapes import guards_rest

if TYPE_CHECKING:  # the visitor calls these passes: its type only, no import cycle
    from envsnap.audit.scanners.python import _Visitor


_DEF = re.compile(r"(?:async\s+)?def\s")


def called_name(call: ast.Call) -> str | None:
    """``helper(...)`` -> ``helper``; ``self.helper(...)`` (or ``cls.``) -> ``helper``; else None."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in ("self", "cls")
    ):
        return func.attr
    return None


def device_predicates(visitor: _Visitor, tree: ast.Module) -> frozenset[str]:
    """Functions and methods that return False unless a device test passed.

    ``def _should_use_streaming(self, x): ... if x.device.type != "cuda": return False ...`` (GPTQModel
    7.7 qlinear/torch.py, #22 blind round 9): the body of ``if self._should_use_streaming(x):`` runs only
    on CUDA, as under ``if x.device.type == "cuda":``. The guard clause must come before any other
    return than ``return False`` (an earlier ``return True`` would pass on any device).
    """
    names: set[str] = set()
    members = [m for c in tree.body if isinstance(c, ast.ClassDef) for m in c.body]
    for node in (*tree.body, *members):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        # Only the leading statements: a docstring, assignments, and guard clauses that return False.
        for statement in node.body:
            if isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign)):
                continue
            if not (isinstance(statement, ast.If) and guards_rest(statement)):
                break
            if not _returns_false(statement.body[-1]):
                break
            if visitor._is_guard(statement.test):
                names.add(node.name)
                break
    return frozenset(names)


def _returns_false(statement: ast.AST) -> bool:
    return (
        isinstance(statement, ast.Return)
        and isinstance(statement.value, ast.Constant)
        and statement.value.value is False
    )


def guard_methods_by_callers(visitor: _Visitor, tree: ast.Module, text: str) -> None:
    """A class method that every caller reaches only inside a guard is guarded too.

    ``if self._should_use_streaming(x): out = self._forward_streaming(x)``: the CUDA streams and events of
    ``_forward_streaming``, and of the helper methods only it calls, run only on CUDA (GPTQModel 7.7
    qlinear/torch.py, #22 blind round 9). Every reference to the name in the module's text must be such a
    call (one ``def`` of that name). A caller's line may hold no trigger token, so the main visit may have
    skipped it: a second visit (of the statements holding those lines, parsed again in a long module)
    walks everything that encloses them, ``if`` tests included.
    """
    if not visitor.in_method:
        return
    lines = visitor.lines
    candidates = set(visitor.in_method.values())
    found = _word_lines(lines, candidates, attributes=True)
    references: dict[str, list[int]] = {}
    for name in candidates:
        uses = found.get(name, [])
        definitions = [n for n in uses if _DEF.match(lines[n - 1].lstrip())]
        if len(definitions) == 1 and len(uses) > 1:
            references[name] = [n for n in uses if n != definitions[0]]
    if not references:
        return
    probe = _probe(visitor, tree, text, sorted({n for numbers in references.values() for n in numbers}))
    if probe is None:
        return
    sites: dict[str, list[tuple[str | None, bool]]] = {}
    for callee, unit, guarded in probe.call_sites:
        if callee in references:
            sites.setdefault(callee, []).append((unit, guarded))
    guarded_methods: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, numbers in references.items():
            calls = sites.get(name, [])
            if name in guarded_methods or len(calls) != len(numbers):
                continue
            if all(ok or (unit in guarded_methods and unit != name) for unit, ok in calls):
                guarded_methods.add(name)
                changed = True
    for index, method in visitor.in_method.items():
        if method in guarded_methods:
            visitor.signals[index] = msgspec.structs.replace(visitor.signals[index], guarded=True)


def guard_by_callers(visitor: _Visitor, tree: ast.Module, text: str) -> None:
    """A module-level helper that every caller reaches only inside a guard is guarded too.

    ``def _nvidia_arch(): torch.cuda.get_device_capability()`` called only under
    ``if device == "cuda":`` never runs on another device. Every reference to the name must be one of
    the guarded calls the visitor saw (a name passed as a value, or a call on a line the visitor
    skipped, leaves the helper as it was). A module parsed whole counts names in its tree; a long one
    parsed in parts (python_chunks) counts the name's words in its text, comments and strings too,
    which can only leave more helpers as they were.

    A self-test (``def test_layernorm(): ... device="cuda"`` inside a library module, run by hand on a
    CUDA machine; pytest's ``test*`` naming) that only other self-tests of the module call is guarded
    too: the library never runs it (unsloth 2026.3 kernels/layernorm.py, #22 blind round 9).
    """
    if not visitor.inside:
        return
    whole = len(visitor.lines) < CHUNK_MIN_LINES
    defined: dict[str, int] = {}
    references: dict[str, int] = {}
    spans: list[tuple[int, int, str]] = []
    for node in ast.walk(tree) if whole else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined[node.name] = defined.get(node.name, 0) + 1
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            references[node.id] = references.get(node.id, 0) + 1
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = statement.decorator_list[0].lineno if statement.decorator_list else statement.lineno
            spans.append((first, statement.end_lineno or statement.lineno, statement.name))
    lines_of = _word_lines(visitor.lines, set(visitor.inside.values()))
    guarded_calls = visitor.guarded_calls
    if not whole or (
        visitor.hot is not None
        and any(references.get(f, 0) > guarded_calls.get(f, 0) for f in set(visitor.inside.values()))
    ):
        # The visit skipped statements with no trigger token: a whole module's `return auto_device()`
        # under `if device is None:` in a function whose only "cuda" is in its docstring (origami-ml's
        # utils/device.py, round 593) was never counted, where every line's visit counts it.
        guarded_calls = _probed_calls(visitor, tree, text, lines_of)
    for index, function in set(visitor.inside.items()):
        uses = lines_of.get(function, [])
        definitions = [n for n in uses if _DEF.match(visitor.lines[n - 1].lstrip())]
        if len(definitions) != 1:
            continue
        calls_at = [n for n in uses if n != definitions[0]]
        if function.startswith("test") and all(
            any(a <= n <= b and name.startswith("test") and name != function for a, b, name in spans)
            for n in calls_at
        ):
            visitor.signals[index] = msgspec.structs.replace(
                visitor.signals[index], guarded=True, detail=(*visitor.signals[index].detail, "self-test=1")
            )
            continue
        calls = guarded_calls.get(function, 0)
        seen = references.get(function, 0) if whole else len(calls_at)
        if (defined.get(function) == 1 or not whole) and calls and seen == calls:
            visitor.signals[index] = msgspec.structs.replace(visitor.signals[index], guarded=True)


def _probed_calls(
    visitor: _Visitor, tree: ast.Module, text: str, lines_of: dict[str, list[int]]
) -> dict[str, int]:
    """The guarded calls per helper, its callers' lines visited again (in a long module, parsed again).

    The main tree of a long module holds only the statements with a trigger token, and a call such as
    ``self.device = _gpu_if_available()`` under ``if device is None:`` has none (opensoundscape 0.13.2's
    ml/cnn.py, #22 blind round 247): the main visit never counted it, where a whole parse does. As for
    methods (``guard_methods_by_callers``), the statements holding the callers' lines are parsed and
    visited again.
    """
    lines = visitor.lines
    wanted = sorted(
        {n for numbers in lines_of.values() for n in numbers if not _DEF.match(lines[n - 1].lstrip())}
    )
    probe = _probe(visitor, tree, text, wanted) if wanted else None
    return visitor.guarded_calls if probe is None else probe.guarded_calls


def _probe(visitor: _Visitor, tree: ast.Module, text: str, wanted: list[int]) -> _Visitor | None:
    """A second visit of what encloses the ``wanted`` lines (their ``if`` tests included), or None where
    those statements do not parse. The main tree of a long module holds only the statements with a trigger
    token, so there they are parsed again."""
    lines = visitor.lines
    snippet = tree
    if len(lines) >= CHUNK_MIN_LINES:
        try:
            snippet = parse_hot(text, lines, visitor.relative, wanted)
        except (SyntaxError, ValueError, RecursionError):
            return None
    probe = type(visitor)(visitor.relative, lines, wanted)
    probe.trees = [tree, snippet]
    probe.visit(snippet)
    return probe


def _word_lines(lines: list[str], words: set[str], *, attributes: bool = False) -> dict[str, list[int]]:
    """Per word, the numbers of the lines where it stands as a whole identifier, once per occurrence.

    ``attributes``: count ``obj.word`` too (a method's references). ``str.find`` per word: a module has
    few such names, and a regular expression over a long module cost more than the rest of this pass.
    """
    text = "".join(lines)
    starts = list(itertools.accumulate((len(line) for line in lines), initial=0))
    found: dict[str, list[int]] = {}
    for word in words:
        at = text.find(word)
        while at != -1:
            before = text[at - 1] if at else " "
            after = text[at + len(word) : at + len(word) + 1]
            if not (before.isalnum() or before == "_" or (before == "." and not attributes)) and not (
                after.isalnum() or after == "_"
            ):
                found.setdefault(word, []).append(bisect.bisect_right(starts, at))
            at = text.find(word, at + len(word))
    return found
