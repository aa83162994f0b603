"""The main screen: the five tabs and the footer, and the reactives they are bound to.

The app's message handlers set these reactives; ``data_bind`` fans them out to the panes, which
redraw in their watchers. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Footer, TabbedContent

from envsnap.tui.catalog import SnapshotEntry
from envsnap.tui.panes.checks import ChecksPane
from envsnap.tui.panes.deferred import DeferredPane
from envsnap.tui.panes.devices import DevicesPane, TelemetryState
from envsnap.tui.panes.overview import OverviewPane
from envsnap.tui.panes.packages import PackagesPane
from envsnap.tui.panes.snapshots import SnapshotsPane

if TYPE_CHECKING:
    from envsnap.snapshot.model import ProbeRun, Snapshot

TABS = ("overview", "devices", "packages", "checks", "snapshots")
"""Tab ids in order; keys 1–5 select them."""


class MainScreen(Screen[None]):
    """Tabs over the snapshot, telemetry and snapshots folder."""

    snapshot: reactive[Snapshot | None] = reactive(None)
    """The machine on screen: live (collected) or opened from a file."""
    probe_runs: reactive[Mapping[str, ProbeRun]] = reactive(dict)
    partial: reactive[Snapshot | None] = reactive(None, repaint=False)
    """While probing: the sections finished so far, so each Overview row fills in as its probe returns."""
    load_error: reactive[str | None] = reactive(None)
    source: reactive[str] = reactive("")
    # The telemetry reactives change every sample and only feed the Devices pane (data_bind):
    # the default repaint=True would repaint this whole screen once per second for nothing.
    telemetry: reactive[TelemetryState | None] = reactive(None, repaint=False)
    telemetry_status: reactive[str] = reactive("waiting for the first sample…", repaint=False)
    telemetry_error: reactive[str | None] = reactive(None, repaint=False)
    entries: reactive[tuple[SnapshotEntry, ...] | None] = reactive(None)
    folder: reactive[str] = reactive("snapshots")

    def compose(self) -> ComposeResult:
        with TabbedContent(id="tabs", initial="overview"):
            yield OverviewPane().data_bind(
                MainScreen.snapshot,
                MainScreen.probe_runs,
                MainScreen.load_error,
                MainScreen.source,
                MainScreen.partial,
            )
            yield DevicesPane().data_bind(
                MainScreen.snapshot,
                MainScreen.telemetry,
                MainScreen.telemetry_status,
                MainScreen.telemetry_error,
            )
            yield PackagesPane().data_bind(MainScreen.snapshot)
            yield ChecksPane().data_bind(MainScreen.snapshot)
            yield SnapshotsPane().data_bind(MainScreen.entries, MainScreen.folder)

    def on_mount(self) -> None:
        # The footer and the hidden tabs come right after the first frame: the footer (a widget
        # per binding, rebuilt while focus settles) adds tens of milliseconds before it otherwise.
        self.call_after_refresh(self.build_panes)

    async def build_panes(self) -> None:
        """Mount the footer and every deferred tab's widgets (once)."""
        if not self.is_attached:
            return  # the app quit before its first frame was done
        if not self.query(Footer):
            await self.mount(Footer())
        for pane in self.query(DeferredPane):
            await pane.build()

    @property
    def active_tab(self) -> str:
        """Id of the tab on show."""
        return self.query_one(TabbedContent).active

    async def show_tab(self, tab: str) -> None:
        """Switch to a tab and focus its main widget, so its keys work at once."""
        self.query_one(TabbedContent).active = tab
        await self._focus_pane(tab)

    @on(TabbedContent.TabActivated)
    async def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id is not None:
            await self._focus_pane(event.pane.id)

    async def _focus_pane(self, tab: str) -> None:
        pane = self.query_one(f"#{tab}")
        if isinstance(pane, DeferredPane):
            await pane.build()  # opened before the background build got to it
        for widget in (*pane.query(DataTable), *pane.query(VerticalScroll)):
            widget.focus()
            return

    def selected_snapshot(self) -> SnapshotEntry | None:
        """The snapshot under the cursor of the Snapshots tab."""
        return self.query_one(SnapshotsPane).selected()

    def marked_snapshot(self) -> Path | None:
        """The snapshot marked as the diff base."""
        return self.query_one(SnapshotsPane).marked
