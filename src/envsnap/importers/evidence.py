"""Facts read line by line from any paste: what a report says, wherever it says it.

Whole formats (collect_env, nvidia-smi, pip list, ...) are parsed by their own importers; most of what
people paste is none of them: a ComfyUI or SD.Next start-up log, ``sglang.check_env``, ``ds_report``,
``pip show torch``, an issue template's ``- **PyTorch Version:** 2.7.1+cu128``, a resolver conflict.
Here every line (log prefixes stripped, see log_prefix.py; clipped to ``MAX_LINE`` characters) goes
through small patterns, each anchored or guarded by a literal keyword, none with nested repetition,
so a paste costs time linear in its size. Each match is a ``Fact`` with its 1-based line number.

Facts only fill what the structural parsers left unknown (auto.py merges them last). A fact is taken
as far as the text pins it down and no further: ``PyTorch 1.9.0`` in a sentence is a version, not a
build (a bare version says nothing about CUDA, so it never becomes a CPU-only torch); ``CUDA 12.2``
with no label could be the driver's, the toolkit's or torch's, so it is recorded as said and used
by no rule.

This module normalises each line and hands it on: ``key: value`` lines to evidence_keys.py, lines
with no key to evidence_inline.py (which hands device listings to evidence_devices.py); what they
share (the Fact, the reader's state, versions, GPU names) is evidence_base.py.
"""

from __future__ import annotations

import re

from envsnap.importers import log_prefix, markup_lines
from envsnap.importers.evidence_base import (
    AMD_UNNAMED,
    KEY_VALUE,
    TORCH_INLINE,
    Fact,
    Reader,
    torch_of,
    version_in,
)
from envsnap.importers.evidence_inline import inline
from envsnap.importers.evidence_keys import key_value

__all__ = ["AMD_UNNAMED", "MAX_LINE", "Fact", "normalise", "read"]

MAX_LINE = 4096
"""Characters of a line that are read: no fact needs more, and it bounds the work per line."""
_MARKUP = re.compile(r"^(?:[-*+>] |#{1,6} |\d{1,3}[.)] |\*\* ?)+")
_SPACE_RUN = re.compile(r"[ \t]{3,}")


def normalise(line: str) -> str:
    """A line with log prefixes, Markdown bullets/quotes/bold and long blank runs taken out; a JSON
    member or XML leaf element (HTML-escaped or not) as ``key: value`` (markup_lines.py)."""
    line = markup_lines.unescape(log_prefix.strip(line[:MAX_LINE]).strip())
    line = markup_lines.as_key_value(line) or line
    line = _MARKUP.sub("", line).replace("**", "").replace("`", "")
    return _SPACE_RUN.sub("   ", line).strip()


_HF_TORCH = re.compile(
    r"^PyTorch version \((?:GPU|accelerator)\?\)\s*:\s*(?P<v>\d[\w.+-]{0,60}?)\s*"
    r"\((?P<answer>[A-Za-z]{2,6})\)\s*$",
    re.I,
)
"""The Hugging Face env commands' torch line (transformers-cli/diffusers-cli/accelerate/peft env):
``PyTorch version (GPU?): 2.2.1+cu121 (True)``; transformers >= 4.45 writes ``(accelerator?): ... (CUDA)``.
The key's ``?`` is outside the plain key pattern, and the parenthesis is torch.cuda.is_available()
(or the accelerator found: CUDA, or NA for none)."""


def _line(reader: Reader, number: int, raw: str) -> None:
    line = normalise(raw)
    if not line:
        return
    lower = line.lower()
    # pip show: "Name: torch" then "Version: 2.2.1" and "Requires: ...".
    if line.startswith("Name: "):
        reader.pip_show = line[6:].strip().lower() or None
    elif line.startswith("Version: ") and reader.pip_show:
        found = version_in(line[9:].strip())
        if found:
            reader.add("package", found, number, reader.pip_show)
        return
    if reader.heading is not None:
        key, at = reader.heading
        if number - at <= 4 and not line.startswith("#") and key_value(reader, key, line, number):
            reader.heading = None
            return
        if number - at > 4:
            reader.heading = None
    if raw.lstrip().startswith("#") and len(line) <= 60:
        reader.heading = (line.lower().rstrip(":"), number)
        return
    if "?)" in line and (hf := _HF_TORCH.match(line)):
        reader.add("torch", hf.group("v"), number)
        answer = hf.group("answer").lower()
        if answer in ("true", "cuda", "false", "na"):
            reader.add("cuda-available", "yes" if answer in ("true", "cuda") else "no", number)
        return
    kv = KEY_VALUE.match(line)
    if kv is not None:
        key = " ".join(kv.group("key").lower().split()).rstrip(" .:")
        value = kv.group("value").strip()
        if key_value(reader, key, value, number):
            return
        # "Versions: PyTorch 2.8.0 + cu129": a key torch's own keys do not cover, torch named in the value.
        if "torch" in value.lower() and (torch := TORCH_INLINE.match(value)):
            reader.add("torch", torch_of(torch), number)
            return
    inline(reader, number, line, lower)


def read(text: str) -> list[Fact]:
    """Every fact in ``text``, in line order."""
    reader = Reader()
    for number, raw in enumerate(text.split("\n"), start=1):
        if raw and not raw.isspace():
            _line(reader, number, raw)
    return reader.facts
