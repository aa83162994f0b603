"""The documentation holds together: every relative link resolves, the README stays a front door.

Links are read with markdown-it-py (already installed with Rich and Textual), so code spans and fenced
blocks are never mistaken for links. Anchors are computed the way GitHub renders headings.
"""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from tests.conftest import REPO_ROOT

README = REPO_ROOT / "README.md"
README_MAX_LINES = 250
DOCS = sorted([README, REPO_ROOT / "CONTRIBUTING.md", *(REPO_ROOT / "docs").rglob("*.md")])
_PARSER = MarkdownIt("commonmark").enable("table")


def _name(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


@functools.cache
def _tokens(path: Path) -> tuple[Token, ...]:
    return tuple(_PARSER.parse(path.read_text(encoding="utf-8")))


def _inline_children(path: Path) -> list[Token]:
    return [child for token in _tokens(path) if token.type == "inline" for child in token.children or ()]


def _targets(path: Path) -> list[str]:
    """Every link and image target of a Markdown file, in order."""
    found = []
    for child in _inline_children(path):
        attr = "href" if child.type == "link_open" else "src" if child.type == "image" else None
        if attr is not None:
            found.append(str(child.attrGet(attr)))
    return found


def _slug(text: str) -> str:
    # GitHub: lower case, drop punctuation (keeping letters, digits, '-', '_' and spaces), spaces -> '-'.
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


@functools.cache
def _anchors(path: Path) -> frozenset[str]:
    tokens = _tokens(path)
    seen: dict[str, int] = {}
    anchors = set()
    for heading, inline in itertools.pairwise(tokens):
        if heading.type != "heading_open":
            continue
        slug = _slug("".join(c.content for c in inline.children or () if c.type in ("text", "code_inline")))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return frozenset(anchors)


def _is_external(target: str) -> bool:
    return bool(urlsplit(target).scheme)


def _broken(path: Path, target: str) -> str | None:
    """Why a relative link target does not resolve, or None when it does."""
    parts = urlsplit(target)
    dest = (path.parent / unquote(parts.path)).resolve() if parts.path else path
    if not dest.exists():
        return f"{_name(path)}: {target}: no such file"
    if parts.fragment:
        if dest.suffix != ".md":
            return f"{_name(path)}: {target}: an anchor into a file that is not Markdown"
        if parts.fragment not in _anchors(dest):
            return f"{_name(path)}: {target}: no heading with that anchor in {_name(dest)}"
    return None


def test_the_documentation_set_is_there() -> None:
    names = {_name(p) for p in DOCS}
    assert {"README.md", "CONTRIBUTING.md", "docs/design.md", "docs/compat-rules.md"} <= names
    assert {"docs/security.md", "docs/benchmarks.md", "docs/usage/checks.md"} <= names


@pytest.mark.parametrize("path", DOCS, ids=_name)
def test_every_relative_link_resolves(path: Path) -> None:
    relative = [t for t in _targets(path) if not _is_external(t)]
    problems = [p for t in relative if (p := _broken(path, t)) is not None]
    assert problems == []


def test_the_link_check_catches_a_broken_link_and_a_broken_anchor() -> None:
    guide = REPO_ROOT / "docs" / "usage" / "checks.md"
    assert _broken(guide, "../design.md#layers") is None
    assert _broken(guide, "../design.md#no-such-heading") is not None
    assert _broken(guide, "no-such-page.md") is not None
    assert _slug("Op level: `envsnap.guard` (PyTorch)") == "op-level-envsnapguard-pytorch"


def test_every_docs_page_is_reachable_from_the_readme() -> None:
    reached, todo = {README.resolve()}, [README]
    while todo:
        page = todo.pop()
        for target in _targets(page):
            parts = urlsplit(target)
            if _is_external(target) or not parts.path.endswith(".md"):
                continue
            dest = (page.parent / unquote(parts.path)).resolve()
            if dest.exists() and dest not in reached:
                reached.add(dest)
                todo.append(dest)
    assert sorted(_name(p) for p in DOCS if p.resolve() not in reached) == []


def test_the_readme_is_a_front_door() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES


@pytest.mark.parametrize(
    ("marker", "expected"), [("main-command", "envsnap save"), ("test-command", "pytest")]
)
def test_the_readme_keeps_its_set_up_command_markers(marker: str, expected: str) -> None:
    # .ci/run extracts the test command exactly so: the indented lines between the two markers.
    text = README.read_text(encoding="utf-8")
    assert text.count(f"<!-- {marker} -->\n") == 1
    assert text.count(f"<!-- /{marker} -->\n") == 1
    block = text.split(f"<!-- {marker} -->\n", 1)[1].split(f"<!-- /{marker} -->", 1)[0]
    commands = [line[4:] for line in block.splitlines() if line.startswith("    ")]
    assert len(commands) == 1
    assert expected in commands[0]
