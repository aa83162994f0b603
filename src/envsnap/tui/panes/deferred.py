"""Tab panes whose widgets are mounted after the first frame.

Only the Overview is visible at start; building the other tabs' tables and inputs before the
first paint would only delay it. A deferred pane composes nothing, and ``build()`` (called by
the main screen right after the first refresh, or when the tab is opened first) mounts its
widgets and draws them from the reactive values bound to it meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.widget import Widget
from textual.widgets import TabPane


class DeferredPane(TabPane):
    """A TabPane that mounts ``content()`` on ``build()`` and redraws with ``show()``."""

    built = False
    """Whether the content is mounted; drawing methods do nothing before."""
    _building = False

    def content(self) -> Iterable[Widget]:
        """The pane's widgets (mounted once, by ``build``)."""
        return ()

    def show(self) -> None:
        """Draw the current reactive values into the mounted widgets."""

    async def build(self) -> None:
        """Mount the content once, then draw it."""
        if self.built or self._building or not self.is_attached:
            return
        self._building = True
        await self.mount_all(list(self.content()))
        self.built = True
        self.show()
