"""How a report comes back from an issue tracker: the ways people paste what they copied.

``rendered`` is the text a reader gets by copying a rendered comment: the Markdown rendered to
HTML by a real CommonMark renderer (markdown-it-py, with tables, raw HTML allowed, as GitHub's
renderer does before sanitizing) and the HTML turned back into text, as a browser's copy does:
markup gone, entities decoded, code blocks kept line for line.
"""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser

from markdown_it import MarkdownIt

_BLOCKS = frozenset(
    {"p", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "summary", "details", "pre", "br", "table"}
)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("td", "th"):
            self.parts.append("\t")

    def handle_endtag(self, tag: str) -> None:
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html(markdown: str) -> str:
    """The Markdown rendered to HTML (CommonMark, GitHub's tables, raw HTML kept)."""
    text: str = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    return text


def rendered(markdown: str) -> str:
    """What copying the rendered comment gives: the HTML's text."""
    parser = _Text()
    parser.feed(html(markdown))
    parser.close()
    return "".join(parser.parts)


def quoted(text: str) -> str:
    """Quoted in a reply: every line ``> `` (an empty one ``>``)."""
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def crlf(text: str) -> str:
    """Through a Windows clipboard."""
    return text.replace("\n", "\r\n")


def stripped(text: str) -> str:
    """Trailing spaces trimmed on every line (editors, some trackers)."""
    return "\n".join(line.rstrip() for line in text.split("\n"))


PASTES: dict[str, Callable[[str], str]] = {
    "raw": lambda text: text,
    "quoted": quoted,
    "crlf": crlf,
    "quoted+crlf": lambda text: crlf(quoted(text)),
    "stripped": stripped,
    "rendered": rendered,
    "rendered+quoted": lambda text: quoted(rendered(text)),
    "nested-quote-tight": lambda text: "\n".join(f">>{line}" for line in text.split("\n")),
}
"""Every way of pasting a report the round trip must survive, by name."""
