"""The snapshot block inside an ``envsnap report``: written so that a paste of it reads back whole.

A report travels through issue trackers: it is rendered and copied back as text, quoted in a reply
(every line ``> ``), sent through Windows tools (CRLF), stripped of trailing spaces. The block is
the snapshot as ``save`` writes it, with two changes that make every line survive that trip:

- ASCII only (``allow_unicode=False``): a non-ASCII character is a ``\\xFC`` escape, so a copy
  that turns a no-break space into a space, or a bidi mark that a browser drops, changes nothing;
  control characters were escapes already.
- No block scalars: multi-line text is a double-quoted string with ``\\n`` escapes, so there are
  no blank lines and no line whose meaning depends on trailing spaces.

It starts with the usual ``# envsnap snapshot (schema N), ...`` header and ends with
``# end of envsnap snapshot: N lines, sha256:...``; the line count tells a damaged paste (lines
lost or added) from a good one. Reading learns the quote prefix from the header line and strips
it from every line. Both the writer (render/report.py) and the reader (importers/envsnap_report.py)
use this module, which is why it sits in the bottom layer.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from envsnap._version import __version__
from envsnap.errors import BadInput
from envsnap.snapshot import store
from envsnap.snapshot.model import Snapshot

HEADER = "# envsnap snapshot (schema "
"""How the block's first line starts (after any quote prefix); the same header ``save`` writes."""
END = "# end of envsnap snapshot"
"""How the block's last line starts."""
_END_LINE = re.compile(
    r"# end of envsnap snapshot: (?P<lines>\d{1,9}) lines(?:, (?P<fingerprint>sha256:[0-9a-f]{64}))?"
)
_QUOTE_CHARS = frozenset(" \t>")

_BaseDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _BlockDumper(_BaseDumper):  # type: ignore[misc, valid-type]
    """The safe dumper without anchors; strings keep PyYAML's plain or double-quoted styles."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def encode(snapshot: Snapshot) -> str:
    """The block for ``snapshot``: header, YAML, end line; newline-terminated, ASCII only."""
    body: str = yaml.dump(
        store.to_builtins(snapshot),
        Dumper=_BlockDumper,
        sort_keys=False,
        allow_unicode=False,
        default_flow_style=False,
        width=4096,
    )
    count = body.count("\n")
    end = f"{END}: {count} lines" + (f", {snapshot.fingerprint}" if snapshot.fingerprint else "")
    return f"{HEADER}{snapshot.schema}), written by envsnap {__version__}\n{body}{end}\n"


def has_block(text: str) -> bool:
    """Whether ``text`` holds the end line of a block (a cheap test: a substring search)."""
    return END in text


def header_line(text: str) -> tuple[int, str] | None:
    """The index of the block's header line in ``text``'s lines and its quote prefix, or None.

    Only a header preceded by nothing but quote marks and blanks counts (``> > # envsnap ...``).
    """
    for number, line in enumerate(lines(text)):
        at = line.find(HEADER)
        if at >= 0 and set(line[:at]) <= _QUOTE_CHARS:
            return number, line[:at]
    return None


def lines(text: str) -> list[str]:
    """``text`` split into lines, whatever the line ends (LF, CRLF, CR)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _unquote(line: str, prefix: str) -> str:
    """``line`` without the quote prefix the header had (or as many ``>`` levels, loosely spaced)."""
    if line.startswith(prefix):
        return line[len(prefix) :]
    if line.rstrip() == prefix.rstrip():  # a quoted line whose trailing space was stripped
        return ""
    rest = line
    for _ in range(prefix.count(">")):
        stripped = rest.lstrip(" \t")
        if not stripped.startswith(">"):
            return line  # not quoted like the rest: left as it is; the line count will tell
        rest = stripped[1:]
    return rest[1:] if rest.startswith((" ", "\t")) else rest


def decode(text: str, name: str) -> Snapshot:
    """The snapshot in the block that ``text`` holds (a report, pasted in any of the ways above).

    Raises:
        BadInput: no block, a block without its end (the paste was cut off), lines lost or
            added, or a snapshot that does not validate (the line named is the report's).
    """
    found = header_line(text)
    if found is None:
        raise BadInput(
            f"{name}: this envsnap report carries no snapshot (it was too large to include); "
            "ask for the file `envsnap save -o snapshot.yaml` writes"
        )
    start, prefix = found
    all_lines = lines(text)
    block: list[str] = []
    expected: int | None = None
    for line in all_lines[start + 1 :]:
        content = _unquote(line, prefix)
        end = _END_LINE.fullmatch(content.rstrip())  # at column 0: YAML's own lines are indented or keys
        if end is not None:
            expected = int(end.group("lines"))
            break
        block.append(content)
    if expected is None:
        raise BadInput(
            f"{name}: the envsnap report is cut off (its snapshot has no '{END}' line); "
            "paste the whole report, or attach the file `envsnap report -o FILE` wrote"
        )
    found_lines = sum(1 for line in block if line.strip())
    if found_lines != expected:
        raise BadInput(
            f"{name}: the snapshot in the envsnap report is damaged ({found_lines} lines where its end "
            f"line says {expected}); paste the report again, unedited"
        )
    # Blank lines in front keep YAML's line numbers equal to the report's in error messages.
    yaml_text = "\n" * (start + 1) + "\n".join(block) + "\n"
    return store.loads(yaml_text, name)
