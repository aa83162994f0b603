"""Every string the TUI shows from a snapshot, report or device, made safe once, where it arrives.

The workers' messages (tui/messages.py) carry the data; each message passes its payload through
``display_safe`` when it is made, so no widget ever holds a raw string from a file or a driver:
terminal control characters become visible escapes and a single field is clipped at 64 K
characters (render/safe_text.py, the same sanitizer the CLI renderers use). A live snapshot saved
from the TUI is the display-safe one: it differs from ``envsnap save`` only where the machine
reported control characters or a field that long. Widgets still build ``Content``
or ``Text`` from data, never markup, so ``[/]`` in a GPU name is shown, not parsed.

A clean payload (the usual case) is returned as it is: one msgspec JSON encoding tells whether any
string holds a control character or a long field, so a 150k-package snapshot isn't rebuilt.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from typing import Any, TypeVar

from envsnap.snapshot.safe_text import printable

T = TypeVar("T")

MAX_TUI_FIELD_CHARS = 65_536
"""Longer than the CLI's cap: a live snapshot the TUI saves (``s``) is the one it shows, and real
fields such as torch's build configuration run to a few KB. 64 K still keeps Rich/Textual's
wrapping of one huge word (quadratic) to milliseconds."""

_SUSPECT = re.compile(
    rb"\\u00[01][0-9a-fA-F]|\\[bfr]|\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
    rb'|[^"]{%d}' % MAX_TUI_FIELD_CHARS
)
"""In msgspec's JSON: an escaped C0 control, DEL, a C1 control or a bidi mark in UTF-8, or a long run."""


def display_safe(value: T) -> T:
    """``value`` with every string passed through ``printable`` (escaped and clipped)."""
    if isinstance(value, str):
        return printable(value, MAX_TUI_FIELD_CHARS)  # type: ignore[return-value]
    # msgspec is looked up, not imported: the TUI paints its first frame before the model loads,
    # and a value can't be a Struct before msgspec is.
    msgspec = sys.modules.get("msgspec")
    if msgspec is not None and isinstance(value, msgspec.Struct):
        import msgspec.json

        if _SUSPECT.search(msgspec.json.encode(value)) is None:
            return value
        cleaned: T = msgspec.convert(_strings(msgspec.to_builtins(value)), type(value))
        return cleaned
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: display_safe(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **changes)
    if isinstance(value, tuple):
        return tuple(display_safe(item) for item in value)  # type: ignore[return-value]
    if isinstance(value, list):
        return [display_safe(item) for item in value]  # type: ignore[return-value]
    if isinstance(value, dict):
        return {key: display_safe(item) for key, item in value.items()}  # type: ignore[return-value]
    return value


def _strings(value: Any) -> Any:
    if isinstance(value, str):
        return printable(value, MAX_TUI_FIELD_CHARS)
    if isinstance(value, dict):
        return {key: _strings(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strings(item) for item in value]
    return value
