"""One line of a JSON or XML dump rewritten as the ``key: value`` line evidence.py reads.

People paste structured dumps cut short or mangled, so the whole-document parsers never see them:
A1111's sysinfo JSON holds torch's collect_env as ``"torch_version": "2.1.2+rocm5.6",``; an
``nvidia-smi -q -x`` copied from a web page arrives HTML-escaped (``<driver_version&gt;591.74``,
``&nbsp;`` indents) and stops before ``</nvidia_smi_log>``. Read line by line, each such line is one
key and one value: ``torch version: 2.1.2+rocm5.6``, ``driver version: 591.74``. Nothing is
evaluated; a value of ``null`` (or empty) says nothing and gives no line.
"""

from __future__ import annotations

import html
import re

MAX_VALUE = 200
"""Characters of a value kept: a version, a GPU name or a flag; the line reader clips anyway."""

_JSON_PAIR = re.compile(r'^"(?P<key>[A-Za-z][\w .-]{0,60})"\s?:\s?(?P<value>.{0,600}?),?$')
_XML_ELEMENT = re.compile(r"^<(?P<key>[a-z][a-z0-9_]{0,60})>(?P<value>[^<>]{0,600})</(?P=key)>$")
_ESCAPED = re.compile(r"&(?:gt|lt|amp|quot|nbsp|#\d{1,5});")


def unescape(line: str) -> str:
    """``line`` with HTML entities decoded when it holds any (``&gt;`` -> ``>``, ``&nbsp;`` -> a space)."""
    if "&" not in line or _ESCAPED.search(line) is None:
        return line
    return html.unescape(line).replace("\xa0", " ").strip()


def as_key_value(line: str) -> str | None:
    """``key: value`` for a JSON member or XML leaf element line, else None (also for a null value)."""
    first = line[:1]
    if first == '"':
        match = _JSON_PAIR.match(line)
    elif first == "<":
        match = _XML_ELEMENT.match(line)
    else:
        return None
    if match is None:
        return None
    value = match.group("value").strip().strip('"').strip()
    if not value or value in ("null", "None", "{", "["):
        return None
    key = match.group("key").replace("_", " ")
    return f"{key}: {value[:MAX_VALUE]}"
