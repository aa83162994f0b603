"""The footer of the TUI's screens: Textual's Footer, recomposed once per refresh at most.

Textual's ``Footer`` rebuilds every key widget each time the screen's bindings change (every focus
change), queueing one rebuild per change. Typing ``1 2 3 4 5`` fast changed focus five times and
built the footer five times over; a focus loop (issue 24) built it forever, which was most of that
bug's CPU and memory growth. This subclass queues one rebuild and lets the changes before it share it.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class CoalescedFooter(Footer):
    """A Footer whose rebuilds are coalesced: at most one queued at a time."""

    _rebuild_queued = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        # Textual 8.2.8's Footer.bindings_changed, with the coalescing flag added (textual is pinned).
        self._bindings_ready = True
        if self._rebuild_queued or not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self._rebuild_queued = True
            self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        self._rebuild_queued = False
        await self.recompose()

    def on_mount(self) -> None:
        # Footer.on_mount subscribes to binding changes; a footer mounted after the screen's
        # bindings settled (main screen: after the first frame) would otherwise wait for the next.
        self.bindings_changed(self.screen)
