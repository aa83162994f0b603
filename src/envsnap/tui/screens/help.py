"""The help screen (``?``): every key binding of every tab, generated from the bindings themselves.

Built from the ``BINDINGS`` lists rather than written by hand, so it cannot fall out of date.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

HelpSection = tuple[str, Sequence[BindingType]]
"""A heading ("Everywhere", "Packages tab", ...) and its bindings."""

_KEY_NAMES = {"question_mark": "?", "slash": "/", "escape": "esc", "enter": "enter", "space": "space"}


def key_label(binding: Binding) -> str:
    """How a binding's key is written in the help: its ``key_display`` or a friendly key name."""
    if binding.key_display:
        return binding.key_display
    return ", ".join(_KEY_NAMES.get(key, key) for key in binding.key.split(","))


def with_overrides(sections: Sequence[HelpSection]) -> list[HelpSection]:
    """The sections, each key of the first ("Everywhere") noting where a tab gives it another meaning.

    ``m  Migrate (Snapshots tab: Mark base)``: a tab's own binding wins while that tab has focus,
    and the help says so instead of promising the same key everywhere.
    """
    if not sections:
        return []
    (heading, first), rest = sections[0], sections[1:]
    noted: list[BindingType] = []
    for item in first:
        binding = item if isinstance(item, Binding) else Binding(*item)
        elsewhere = [
            f"{where}: {other.description}"
            for where, bindings in rest
            for other in (b if isinstance(b, Binding) else Binding(*b) for b in bindings)
            if other.key == binding.key and other.action != binding.action
        ]
        if elsewhere:
            binding = replace(binding, description=f"{binding.description} ({'; '.join(elsewhere)})")
        noted.append(binding)
    return [(heading, noted), *rest]


def help_content(sections: Sequence[HelpSection]) -> Content:
    """The help text: one heading per section, one line per binding with a description."""
    lines: list[Content] = []
    for heading, bindings in sections:
        lines.append(Content.styled(heading, "$accent bold"))
        for item in bindings:
            binding = item if isinstance(item, Binding) else Binding(*item)
            lines.append(
                Content.assemble(
                    (f"  {key_label(binding):<10}", "bold"), binding.description or binding.action
                )
            )
        lines.append(Content(""))
    lines.append(
        Content.styled("ctrl+p opens the command palette; esc or ? closes this help.", "$text-muted")
    )
    return Content("\n").join(lines)


class HelpScreen(ModalScreen[None]):
    """A modal list of key bindings."""

    def __init__(self, sections: Sequence[HelpSection]) -> None:
        super().__init__(id="help-screen")
        self.sections = sections

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = "envsnap · keys"
            yield Static(help_content(self.sections), id="help-text")
