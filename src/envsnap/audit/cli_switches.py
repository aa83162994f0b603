"""Command-line options that are off by default, read where an import sits behind one.

``if args.use_bnb_linear is not None: import bitsandbytes`` (open_clip 3.3 ``open_clip_train/main.py``, #22
blind round 23) runs only when the user passes ``--use-bnb-linear``, an argparse option of another module
(``params.py``) that has no default: the import is an opt-in feature, like one behind a parameter that
defaults to False. The scanner marks such imports with the option's name (model.CLI_SWITCH); this module
finds that option's ``add_argument`` call in the project's text, and only for the few names marked.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable

import msgspec

from envsnap.audit.model import CLI_SWITCH, OPT_IN, Signal

MAX_CALL_BYTES = 4000
"""An ``add_argument`` call longer than this (a help text of pages) is not read: the option stays unknown."""
MAX_CLOSERS = 64
"""Closing parentheses tried as the call's end (each try is one parse of at most MAX_CALL_BYTES)."""
MAX_DEFINITIONS = 8
"""``add_argument`` calls read per option and file: a real parser defines an option once; a file repeating
the call a million times (unclosed, each worth MAX_CLOSERS parses) must not cost a million reads."""
MAX_NAMES = 64
"""Options looked up per tree; past this many the rest stay unknown (their imports keep their reading)."""


def switch_names(signals: Iterable[Signal]) -> set[str]:
    """The options that unguarded imports sit behind."""
    return {
        item[len(CLI_SWITCH) :]
        for s in signals
        if s.kind == "import" and not s.guarded
        for item in s.detail
        if item.startswith(CLI_SWITCH)
    }


def off_options(names: set[str], texts: Iterable[bytes]) -> set[str]:
    """Those of ``names`` whose every ``add_argument`` definition in ``texts`` leaves them off by default."""
    patterns = {name: _option_pattern(name) for name in sorted(names)[:MAX_NAMES] if name.isidentifier()}
    seen: dict[str, bool] = {}
    for data in texts:
        if b"add_argument" not in data:
            continue
        for name, pattern in patterns.items():
            for number, match in enumerate(pattern.finditer(data)):
                if number == MAX_DEFINITIONS:
                    break
                call = _call_at(data, match.start())
                if call is None:
                    continue
                off = _off_by_default(call, name)
                if off is not None:
                    seen[name] = seen.get(name, True) and off
    return {name for name, off in seen.items() if off}


def mark_opt_in(signals: list[Signal], off: set[str]) -> list[Signal]:
    """Unguarded imports behind an option that is off by default become opt-in (guarded, OPT_IN)."""
    if not off:
        return signals
    return [
        msgspec.structs.replace(s, guarded=True, detail=(*s.detail, OPT_IN))
        if s.kind == "import"
        and not s.guarded
        and any(item.startswith(CLI_SWITCH) and item[len(CLI_SWITCH) :] in off for item in s.detail)
        else s
        for s in signals
    ]


def _option_pattern(name: str) -> re.Pattern[bytes]:
    """``add_argument("--use-bnb-linear"`` (or ``--use_bnb_linear``, after a short ``"-u",``)."""
    words = rb"[-_]".join(re.escape(part.encode()) for part in name.split("_") if part)
    return re.compile(rb"add_argument\(\s*(?:[\"']-[A-Za-z0-9]{1,8}[\"']\s*,\s*)?[\"']--" + words + rb"[\"']")


def _call_at(data: bytes, start: int) -> ast.Call | None:
    """The ``add_argument(...)`` call starting at ``start``, parsed, or None."""
    window = data[start : start + MAX_CALL_BYTES]
    tried = 0
    end = window.find(b")")
    while end != -1 and tried < MAX_CLOSERS:
        tried += 1
        try:
            with warnings.catch_warnings():  # the file's invalid escapes are not envsnap's to print
                warnings.simplefilter("ignore")
                tree = ast.parse(window[: end + 1].decode("utf-8", "replace"), mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            end = window.find(b")", end + 1)
            continue
        return tree.body if isinstance(tree.body, ast.Call) else None
    return None


def _off_by_default(call: ast.Call, name: str) -> bool | None:
    """Whether the option is unset unless the user passes it (None: the call defines another name)."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    dest = keywords.get("dest")
    if dest is not None and not (isinstance(dest, ast.Constant) and dest.value == name):
        return None
    required = keywords.get("required")
    if required is not None and not (isinstance(required, ast.Constant) and required.value is False):
        return False
    action = keywords.get("action")
    if isinstance(action, ast.Constant) and action.value == "store_false":
        return False
    default = keywords.get("default")
    if default is None:
        return True  # argparse's default is None (False for store_true)
    return isinstance(default, ast.Constant) and (default.value is None or default.value is False)
