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
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from envsnap.tui.catalog import SnapshotEntry
from envsnap.tui.panes.checks import ChecksPane
from envsnap.tui.panes.deferred import DeferredPane
from envsnap.tui.panes.devices import DevicesPane, TelemetryState
from envsnap.tui.panes.overview import OverviewPane
from envsnap.tui.panes.packages import PackagesPane
from envsnap.tui.panes.snapshots import SnapshotsPane
from envsnap.tui.widgets.footer import CoalescedFooter

if TYPE_CHECKING:
    from envsnap.snapshot.model import ProbeRun, Snapshot

TABS = ("overview", "devices", "packages", "checks", "snapshots")
"""Tab ids in order; keys 1–5 select them."""


class EnvsnapTabs(TabbedContent):
    """TabbedContent whose tab changes only by key or click, never because a widget got focus.

    Textual's TabbedContent activates the pane of any widget that is focused. A focus landing late
    (``Widget.focus`` is deferred) in the pane just left switched back to it, and two panes then took
    the tab from each other forever (issue 24). Here focus never switches tabs: ``show_tab`` focuses
    only the active pane's widget.
    """

    def on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        event.prevent_default()  # TabbedContent's own handler would set ``active``
        event.stop()


def _within(widget: Widget | None, ancestor: Widget) -> bool:
    node = widget
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent if isinstance(node.parent, Widget) else None
    return False


def _shown(widget: Widget) -> bool:
    """Whether the widget and every ancestor are displayed (not inside a hidden tab pane)."""
    node: Widget | None = widget
    while node is not None:
        if not node.display:
            return False
        node = node.parent if isinstance(node.parent, Widget) else None
    return True


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

    class TabsReady(Message):
        """The tab strip is mounted and the tab on show is built (the Devices tab draws its cards)."""

    _tabs_ready = False
    """The tab strip is mounted (after the first frame): a tab can be activated."""
    _early_tab: str | None = None
    """The last tab asked for before that."""

    def compose(self) -> ComposeResult:
        with EnvsnapTabs(id="tabs", initial="overview"):
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
        self.focus_active()  # the Overview's scroll, not the tab strip Textual would auto-focus
        # The footer and the hidden tabs come right after the first frame: the footer (a widget
        # per binding, rebuilt while focus settles) adds tens of milliseconds before it otherwise.
        self.call_after_refresh(self.build_panes)

    async def build_panes(self) -> None:
        """After the first frame: the tab on show; the footer and the hidden tabs too on a file.

        Live, the footer and the hidden tabs wait for the first telemetry sample to be drawn
        (``build_hidden_panes``, or FIRST_SAMPLE_WAIT_S): building them meanwhile only delays the
        first GPU card.
        """
        if not self.is_attached:
            return  # the app quit before its first frame was done
        self._tabs_ready = True
        if self._early_tab is not None:
            self.show_tab(self._early_tab)
        active = self.query_one(f"#{self.active_tab}")
        if isinstance(active, DeferredPane):
            await self._build(active)
        self.post_message(self.TabsReady())
        if not getattr(self.app, "live", False):
            await self.build_hidden_panes()

    async def build_hidden_panes(self) -> None:
        """Mount the footer and every deferred tab's widgets (once each)."""
        if not self.is_attached:
            return
        if not self.query(CoalescedFooter):
            await self.mount(CoalescedFooter())
        for pane in self.query(DeferredPane):
            await self._build(pane)

    @property
    def tabs_ready(self) -> bool:
        """Whether the tab strip is mounted (after the first frame)."""
        return self._tabs_ready

    @property
    def active_tab(self) -> str:
        """Id of the tab on show."""
        return self.query_one(TabbedContent).active

    def show_tab(self, tab: str) -> None:
        """Switch to a tab and focus its main widget, both before the next key is read.

        The one path of a tab change by key: the switch and the focus happen here, synchronously,
        so keys typed fast are taken in order (the App forwards each key to the widget focused
        when it reads the key).
        """
        if not self._tabs_ready:
            self._early_tab = tab  # typed before the tab strip exists: shown once it does
            return
        self.query_one(EnvsnapTabs).active = tab
        self.focus_active()

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        # A click on the tab strip: focus follows unless it is already on the strip or in the pane.
        # A key's switch (show_tab) has focused already, so this does nothing then.
        focused = self.focused
        if focused is None or not (focused.display and _shown(focused)):
            self.focus_active()

    def focus_active(self) -> None:
        """Focus the active tab's main widget (its table or scroll); once mounted, if it isn't yet."""
        pane = self.query_one(f"#{self.active_tab}")
        if isinstance(pane, DeferredPane) and not pane.built:
            self.run_worker(self._build(pane), group="build-pane")  # focused when mounted, if still active
            return
        # By CSS type name: DataTable is imported only with the tabs that hold one.
        for widget in (*pane.query("DataTable"), *pane.query(VerticalScroll)):
            # Screen.set_focus, not Widget.focus(): the latter is deferred, and a key read before it
            # runs would go to the old widget.
            self.set_focus(widget)
            return

    async def _build(self, pane: DeferredPane) -> None:
        await pane.build()
        if pane.built and pane.id == self.active_tab and not _within(self.focused, pane):
            self.focus_active()

    def selected_snapshot(self) -> SnapshotEntry | None:
        """The snapshot under the cursor of the Snapshots tab."""
        return self.query_one(SnapshotsPane).selected()

    def marked_snapshot(self) -> Path | None:
        """The snapshot marked as the diff base."""
        return self.query_one(SnapshotsPane).marked
