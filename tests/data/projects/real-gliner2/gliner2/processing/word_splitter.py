"""Word-boundary splitters used before subword tokenization.

A splitter is any callable with signature
``(text: str, lower: bool = True) -> Iterator[tuple[str, int, int]]``.
Each yield is ``(token, start, end)`` where ``start``/``end`` are exclusive-end
character offsets into the **original** ``text``. Lower-case only the token
value when ``lower=True``; never mutate the source string first, because
Unicode case folding can change length and corrupt offsets.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from typing import Any, Callable, Iterator, Optional, Tuple, Union

WordSplitter = Callable[[str, bool], Iterator[Tuple[str, int, int]]]
WordSplitterSpec = Union[str, WordSplitter, type]


_COMBINING_MARKS = "".join(
    chr(code) for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)).startswith("M")
)
_WORD = rf"[\w{_COMBINING_MARKS}\u200c\u200d]"


class WhitespaceTokenSplitter:
    """Fast regex-based tokenizer for whitespace-delimited text."""

    __slots__ = ()

    _PATTERN = re.compile(
        rf"""(?:https?://[^\s]+|www\.[^\s]+)
        |[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{{2,}}
        |@[a-z0-9_]+
        |{_WORD}+(?:[-_]{_WORD}+)*
        |\S""",
        re.VERBOSE | re.IGNORECASE,
    )

    def __call__(self, text: str, lower: bool = True) -> Iterator[Tuple[str, int, int]]:
        # Match against the original text (the pattern is already case-insensitive)
        # so offsets index the caller's string, then lower-case only the token
        # value. Lower-casing the text first is unsafe because Unicode case
        # folding can change length (e.g. "İ".lower() -> "i\u0307"), which would
        # corrupt the recorded start/end offsets.
        for m in self._PATTERN.finditer(text):
            token = m.group()
            yield (token.lower() if lower else token), m.start(), m.end()


class CharLevelSplitter:
    """Keep Latin words together and treat every other non-space as a token.

    Suitable for languages without whitespace-delimited words, such as Chinese.
    ASCII words, emails, and similar ``[A-Za-z0-9@._-+]`` runs stay intact.
    """

    __slots__ = ()

    _PATTERN = re.compile(r"[A-Za-z0-9@._\-+]+|\S")

    def __call__(self, text: str, lower: bool = True) -> Iterator[Tuple[str, int, int]]:
        for m in self._PATTERN.finditer(text):
            token = m.group()
            yield (token.lower() if lower else token), m.start(), m.end()


WORD_SPLITTERS = {
    "whitespace": WhitespaceTokenSplitter,
    "char": CharLevelSplitter,
}
DEFAULT_WORD_SPLITTER = "whitespace"


def resolve_word_splitter(
    word_splitter: Optional[WordSplitterSpec] = None,
) -> WordSplitter:
    """Resolve a built-in name, class, or callable to a splitter instance."""
    if word_splitter is None:
        word_splitter = DEFAULT_WORD_SPLITTER
    if isinstance(word_splitter, str):
        try:
            word_splitter = WORD_SPLITTERS[word_splitter]
        except KeyError:
            supported = ", ".join(repr(name) for name in sorted(WORD_SPLITTERS))
            raise ValueError(
                f"Unknown word_splitter {word_splitter!r}. "
                f"Supported names: {supported}."
            ) from None
    if isinstance(word_splitter, type):
        try:
            word_splitter = word_splitter()
        except TypeError as exc:
            raise TypeError(
                "word_splitter class must be instantiable with no arguments"
            ) from exc
    if callable(word_splitter):
        return word_splitter
    raise TypeError(
        "word_splitter must be a built-in name "
        f"{sorted(WORD_SPLITTERS)} or a callable, "
        f"got {type(word_splitter).__name__}"
    )


def word_splitter_from(owner: Any) -> Optional[WordSplitter]:
    """Return the active splitter on a model or facade, if one is attached."""
    processor = getattr(owner, "processor", None)
    if processor is None:
        model = getattr(owner, "model", None)
        processor = getattr(model, "processor", None)
    return getattr(processor, "word_splitter", None)
