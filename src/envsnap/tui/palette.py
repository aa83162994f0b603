"""Command palette entries (ctrl+p) for the TUI's main actions.

Each entry runs an app action by name, so the palette, the key bindings and the help screen all
drive the same code.
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

COMMANDS = (
    ("Save snapshot", "save", "Write this machine's state to the snapshots folder"),
    ("Refresh", "refresh", "Probe the machine again and re-read the snapshots folder"),
    ("Pause / resume telemetry", "toggle_pause", "Stop or restart live sampling"),
    ("Diff selected snapshot", "diff_selected", "Compare the selected snapshot (Snapshots tab)"),
    ("Show Overview", "show_tab('overview')", "Layers of the stack and their health"),
    ("Show Devices", "show_tab('devices')", "GPU cards with live telemetry"),
    ("Show Packages", "show_tab('packages')", "Installed distributions"),
    ("Show Checks", "show_tab('checks')", "Findings with evidence and fixes"),
    ("Show Snapshots", "show_tab('snapshots')", "Saved snapshots and diffs"),
    ("Help: keys", "help", "Every key binding"),
)
"""(title, app action, help) of every palette entry."""


class EnvsnapCommands(Provider):
    """Offers the envsnap actions in the command palette."""

    async def discover(self) -> Hits:
        """All entries, in their listed order, before anything is typed."""
        for title, action, help_text in COMMANDS:
            yield DiscoveryHit(title, partial(self.app.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        """Entries whose title fuzzily matches what was typed."""
        matcher = self.matcher(query)
        for title, action, help_text in COMMANDS:
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(title), partial(self.app.run_action, action), help=help_text
                )
