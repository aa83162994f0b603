"""The envsnap TUI application: key bindings, screens, and the thread workers that feed them.

Every probe, telemetry read, psutil join, file read and write runs in a ``@work(thread=True)``
worker that posts a message (``tui.messages``); handlers put the payloads into the main screen's
reactives. The live sampler is a loop of one worker at a time: the next sample is scheduled with
``set_timer`` only after the previous worker finished, also after an error (with a growing delay),
so a hung driver call never piles up threads. Blocking calls go through
``background.call_cancellable`` so that quitting never waits for a stuck driver.

Data sources are injected (collector, sampler factory, process lookup, clock): the CLI passes the
real ones from ``tui.defaults``, tests pass fakes built from recorded hardware outputs.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import Worker, WorkerState, get_current_worker

from envsnap.tui import defaults
from envsnap.tui.background import Cancelled, call_cancellable
from envsnap.tui.messages import (
    DiffComputed,
    DiffFailed,
    ProbeFinished,
    RunReportLoaded,
    SamplerFailed,
    SampleTaken,
    SaveFailed,
    SnapshotCollected,
    SnapshotLoadFailed,
    SnapshotSaved,
    SnapshotsListed,
)
from envsnap.tui.panes.devices import TelemetryState
from envsnap.tui.panes.packages import PackagesPane
from envsnap.tui.panes.snapshots import SnapshotsPane
from envsnap.tui.screens.main import TABS, MainScreen
from envsnap.tui.telemetry import (
    HostLoad,
    HostLoadSource,
    ProcessLookup,
    PsutilHost,
    PsutilProcesses,
    TelemetryHistory,
    sample_pids,
)

if TYPE_CHECKING:
    from textual.command import Provider

    from envsnap.collector import ProbeEvent
    from envsnap.live.run_report import RunReport
    from envsnap.live.sampler import Sampler
    from envsnap.snapshot.model import Sample, Snapshot

FILTER_BINDING = Binding("slash", "focus_filter", "Filter", key_display="/", priority=True)
"""``/`` on the Packages tab: into the filter box."""
BACK_BINDING = Binding("escape", "escape_back", "Back", priority=True)
"""``esc``: out of the filter box, or close the help or diff screen."""
TYPED_IN_FILTER = ("help", "show_tab", "focus_filter")
"""Priority actions whose key is text while a text box has focus (package names hold digits)."""
MIN_INTERVAL_S = 0.1
RUN_VIEW_ACTIONS = ("quit", "help", "reread")
"""The app's keys that do something on the Run view (listed by its help)."""
LIVE_ONLY_ACTIONS = ("save", "toggle_pause", "refresh")
"""Actions of the live machine only: hidden from the footer and help when a file is on show."""
FIRST_SAMPLE_WAIT_S = 1.0
"""Longest the probes wait for the first telemetry sample before they start anyway."""
MAX_RETRY_DELAY_S = 30.0
"""Longest wait between sampling attempts while a backend keeps failing."""


def _envsnap_commands() -> type[Provider]:
    # Like Textual's own system-commands provider: the class is looked up when the palette opens.
    from envsnap.tui.palette import EnvsnapCommands

    return EnvsnapCommands


class EnvsnapApp(App[int]):
    """Live inspector of this machine's ML stack, or viewer of a saved snapshot or run report."""

    CSS_PATH = Path(__file__).with_name("envsnap.tcss")
    TITLE = "envsnap"
    COMMANDS = App.COMMANDS | {_envsnap_commands}
    # Textual declares this as an instance-level ClassVar union; annotating it here upsets mypy.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]  # noqa: RUF012
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        # The keys that move between tabs, screens and the filter are priority bindings: the App
        # takes them in the order they were typed, and their focus changes are done before the next
        # key is read. A plain binding runs later, when the key has reached the widget that had focus
        # when it arrived (issue 24: `/ esc 2` typed fast put the 2 into the filter).
        Binding("question_mark", "help", "Help", key_display="?", priority=True),
        Binding("s", "save", "Save"),
        Binding("p", "toggle_pause", "Pause"),
        Binding("r", "refresh", "Refresh"),
        Binding("m", "migrate", "Migrate", show=False),
        Binding("r", "reread", "Re-read"),  # the same key on a file: read it again
        # On a file, s and p are off the footer but still say why they do nothing.
        Binding("s", "read_only('save')", "Save", show=False),
        Binding("p", "read_only('toggle_pause')", "Pause", show=False),
        # Every terminal tool quits on ctrl+c (Textual's default only says "press ctrl+q").
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        *(
            Binding(str(n), f"show_tab('{tab}')", tab.title(), show=False, priority=True)
            for n, tab in enumerate(TABS, 1)
        ),
        FILTER_BINDING,
        BACK_BINDING,
        Binding("tab", "focus_next", "Next", show=False, priority=True),
        Binding("shift+tab", "focus_previous", "Previous", show=False, priority=True),
    ]

    def __init__(
        self,
        *,
        snapshot_path: Path | None = None,
        interval_s: float = 1.0,
        snapshot_dir: Path = Path("snapshots"),
        collector: defaults.Collector | None = None,
        sampler_factory: defaults.SamplerFactory | None = None,
        process_lookup: ProcessLookup | None = None,
        host_load: HostLoadSource | None = None,
        clock: defaults.Clock = defaults.utc_now,
    ) -> None:
        """Configure the app; nothing is probed or read until it runs.

        Args:
            snapshot_path: open this file read-only instead of probing the live machine: a
                snapshot (the tabs), or an ``envsnap run``/``watch`` report (the Run view).
            interval_s: seconds between telemetry samples (at least 0.1).
            snapshot_dir: folder listed on the Snapshots tab and written by ``s``.
            collector: probes the machine (default: ``envsnap.api.collect``).
            sampler_factory: opens the telemetry backends (default: NVML/amdsmi via live.sources).
            process_lookup: joins GPU PIDs with the OS (default: psutil).
            host_load: reads this host's CPU and memory for the Devices tab (default: psutil).
            clock: current time, for saved snapshots' capture time.
        """
        super().__init__()
        self.snapshot_path = snapshot_path
        self.interval_s = max(interval_s, MIN_INTERVAL_S)
        self.snapshot_dir = snapshot_dir
        self._collector = collector or defaults.live_collector()
        self._sampler_factory = sampler_factory or defaults.live_sampler
        self._processes = process_lookup or PsutilProcesses()
        self._host = host_load or PsutilHost()
        self._clock = clock
        self._history = TelemetryHistory()
        self._sampler: Sampler | None = None  # opened and used only in the sampling worker
        self._sampling = False
        self._sample_again = False
        self._paused = False
        self._failures = 0
        self._sample_timer: Timer | None = None
        self._collection_started = False
        self._probes_timer: Timer | None = None
        self._save_queued = False
        """``s`` was pressed while probing: save as soon as the snapshot is complete."""
        self._saving = False
        """A save worker is writing (thread workers can't be cancelled: never two at once)."""
        self._last_sample: Sample | None = None
        self._last_errors: tuple[str, ...] = ()
        self.run_report: RunReport | None = None
        self.document_screen: Screen[Any] | None = None
        """The verify or fleet screen when the opened file is one (it covers the empty tabs)."""
        """The run report on show when the opened file is one (the Run view covers the tabs)."""
        self.main = MainScreen(id="main")

    @property
    def live(self) -> bool:
        """Whether the app shows this machine (not a snapshot file)."""
        return self.snapshot_path is None

    @property
    def sampling(self) -> bool:
        """Whether a telemetry sample is being taken right now."""
        return self._sampling

    @property
    def retry_delay_s(self) -> float:
        """Seconds until the next sample: the interval, doubled per consecutive failed sample (capped)."""
        return next_delay_s(self.interval_s, self._failures)

    @property
    def sampler_failures(self) -> int:
        """Consecutive samples that failed or reported backend errors."""
        return self._failures

    @property
    def snapshot(self) -> Snapshot | None:
        """The snapshot on screen, once collected or loaded."""
        return self.main.snapshot

    # ------------------------------------------------------------------ lifecycle

    def get_default_screen(self) -> Screen[Any]:
        # The main screen is the app's base screen (not pushed over an empty default one).
        return self.main

    def on_mount(self) -> None:
        self.main.folder = str(self.snapshot_dir)
        if self.live:
            self.sub_title = "live"
            self.main.source = "live · this machine"
        else:
            self.sub_title = f"{self.snapshot_path} (read-only)"
            self.main.source = f"snapshot file {self.snapshot_path} · read-only"
            self.main.telemetry_status = "reading the snapshot…"
        if self.live:
            # The sampler opens (pynvml, the model) while the first frame is laid out: the first
            # GPU card needs both, and the sample is then in by the time the Devices tab is built,
            # instead of starting only after the first paint. Sampling is one light thread.
            self._schedule_sample()
        # Probe threads compete with the first render for the GIL: paint first, then start them.
        self.main.call_after_refresh(self._start_work)

    def _start_work(self) -> None:
        if self.live:
            # The probes (python, extensions) hold the GIL and the import lock for seconds and
            # would delay the first sample; they start when it is drawn (or after
            # FIRST_SAMPLE_WAIT_S, should the driver hang).
            self._probes_timer = self.set_timer(
                FIRST_SAMPLE_WAIT_S, self._start_collection, name="envsnap-start-probes"
            )
            return  # the snapshots folder is listed with the probes: the first card needs neither
        self._load_snapshot(Path(str(self.snapshot_path)))
        self._list_snapshots()

    def on_unmount(self) -> None:
        if self._sample_timer is not None:
            self._sample_timer.stop()
        sampler, self._sampler = self._sampler, None
        if sampler is not None and not self._sampling:
            # NVML/amdsmi shutdown is quick, but never let it hold up the exit.
            import threading

            closer = threading.Thread(target=sampler.close, name="envsnap-sampler-close", daemon=True)
            closer.start()
            closer.join(1.0)

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A file on show (read-only) offers no save or pause, and its r re-reads the file.

        The priority keys step aside (False: the key goes on to the focused widget) where they
        would take text from a text box, or where they have nothing to do.
        """
        from textual.widgets import Input

        typing = isinstance(self.screen.focused, Input)
        if action in TYPED_IN_FILTER and typing:
            return False
        if action == "focus_filter":
            return (
                self.screen is self.main
                and self.main.tabs_ready  # a key typed before the tab strip exists
                and self.main.active_tab == "packages"
                and self.main.query_one(PackagesPane).built
            )
        if action == "escape_back":
            return self._back_target() is not None
        if action in LIVE_ONLY_ACTIONS:
            return self.live
        if action in ("reread", "read_only"):
            return not self.live
        return True

    def action_reread(self) -> None:
        """Read the opened file again (r on a snapshot or run report)."""
        self.action_refresh()

    def action_read_only(self, action: str) -> None:
        """s or p on a file: the live action, which says why it does nothing here."""
        {"save": self.action_save, "toggle_pause": self.action_toggle_pause}[action]()

    def action_help(self) -> None:
        """Show every key binding."""
        # Screens shown on demand are imported on demand: less to load before the first frame.
        from envsnap.tui.screens.help import HelpScreen, HelpSection, with_overrides

        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        if self.run_report is not None or self.document_screen is not None:  # no tabs, nothing to save
            keys = [b for b in self.BINDINGS if isinstance(b, Binding) and b.action in RUN_VIEW_ACTIONS]
            title = "Run view" if self.run_report is not None else str(self.screen.title or "This view")
            self.push_screen(HelpScreen([(f"{title} (read-only)", keys)]))
            return
        per_screen = ("read_only", "focus_filter", "escape_back", "focus_next", "focus_previous")
        offered = [
            b
            for b in self.BINDINGS
            if isinstance(b, Binding)
            and self.check_action(b.action, ())
            and not b.action.startswith(per_screen)
        ]
        sections: list[HelpSection] = [
            ("Everywhere", offered),
            (
                "Packages tab",
                [
                    FILTER_BINDING,
                    Binding("escape", "escape_back", "Back to the table"),
                    *PackagesPane.BINDINGS,
                ],
            ),
            ("Snapshots tab", SnapshotsPane.BINDINGS),
            ("Diff screen", [Binding("escape", "escape_back", "Back to the tabs")]),
        ]
        self.push_screen(HelpScreen(with_overrides(sections)))

    def action_show_tab(self, tab: str) -> None:
        """Switch to a tab (keys 1–5), from any screen over the tabs."""
        if self._in_run_view():
            return
        while self.screen is not self.main and len(self.screen_stack) > 1:
            self.pop_screen()
        self.main.show_tab(tab)

    def action_focus_filter(self) -> None:
        """Into the Packages filter box (``/``)."""
        self.main.query_one(PackagesPane).action_focus_filter()

    def action_escape_back(self) -> None:
        """``esc``: from the filter box back to the table, or close the help or diff screen."""
        target = self._back_target()
        if target == "table":
            self.main.query_one(PackagesPane).action_focus_table()
        elif target == "pop":
            self.pop_screen()

    def _back_target(self) -> str | None:
        from textual.widgets import Input

        from envsnap.tui.screens.diff import DiffScreen
        from envsnap.tui.screens.help import HelpScreen

        if self.screen is self.main:
            return "table" if isinstance(self.screen.focused, Input) else None
        return "pop" if isinstance(self.screen, (HelpScreen, DiffScreen)) else None

    def action_toggle_pause(self) -> None:
        """Pause or resume live telemetry."""
        if not self.live:
            self.notify("A snapshot file has no live telemetry to pause.", severity="warning")
            return
        self._paused = not self._paused
        if self._paused:
            if self._sample_timer is not None:
                self._sample_timer.stop()
                self._sample_timer = None
            self.main.telemetry_status = "paused · p to resume"
        else:
            self.main.telemetry_status = f"live · every {self.interval_s:g} s"
            self._schedule_sample()

    def action_refresh(self) -> None:
        """Probe the machine again (or re-read the file), sample now, and re-list the snapshots folder."""
        if self.live:
            self.main.probe_runs = {}
            self.main.partial = None
            self._collect_snapshot()
            self.sample_now()
        else:
            self._load_snapshot(Path(str(self.snapshot_path)))
        self._list_snapshots()

    def action_save(self) -> None:
        """Save the live state (snapshot plus the latest telemetry) to the snapshots folder."""
        if not self.live:
            kind = "snapshot" if self.run_report is None else "run report"
            self.notify(f"This is a saved {kind} (read-only); nothing new to save.", severity="warning")
            return
        if self.snapshot is None:
            if not self._save_queued:
                self._save_queued = True
                self.notify("Saving when probing completes…", title="Save queued")
            return
        self._start_save()

    def _start_save(self) -> None:
        if self._saving:
            self.notify("Already saving; the snapshot in progress is this machine's state.")
            return
        assert self.snapshot is not None
        self._saving = True
        self._save_snapshot(self.snapshot, self._last_sample)

    def action_migrate(self) -> None:
        """Open the Migrate view: the migration audit of the current folder for a chosen target."""
        from envsnap.tui.screens.migrate import MigrateScreen

        if not self._in_run_view():
            self.push_screen(MigrateScreen(Path.cwd(), self.snapshot))

    async def action_diff_selected(self) -> None:
        """Diff the snapshot selected on the Snapshots tab (command palette entry)."""
        if self._in_run_view():
            return
        self.action_show_tab("snapshots")
        self.main.query_one(SnapshotsPane).action_diff()

    # ------------------------------------------------------------------ snapshot

    @work(
        thread=True, exclusive=True, group="snapshot", exit_on_error=False, description="Probing this machine"
    )
    def _collect_snapshot(self) -> None:
        finished: dict[str, object] = {}
        lock = threading.Lock()

        def progress(event: ProbeEvent) -> None:
            # Called from each probe's thread as it returns: the layer is drawn at once, from a
            # partial snapshot built here (off the event loop), not when every probe is done.
            if event.run is None:
                return
            partial = None
            if event.value is not None:
                from envsnap.collector import partial_snapshot

                with lock:
                    finished[event.run.name] = event.value
                    partial = partial_snapshot(dict(finished))
            self.post_message(ProbeFinished(event.run, partial))

        try:
            snapshot = call_cancellable(lambda: _evaluated(self._collector(progress)), name="envsnap-collect")
        except Cancelled:
            return
        except Exception as err:  # a collector bug is shown, not raised into the event loop
            self.post_message(SnapshotLoadFailed(f"probing failed: {type(err).__name__}: {err}"))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(SnapshotCollected(snapshot))

    @work(thread=True, exclusive=True, group="snapshot", exit_on_error=False, description="Reading file")
    def _load_snapshot(self, path: Path) -> None:
        from envsnap.documents import load_document
        from envsnap.errors import BadInput
        from envsnap.live.run_report import RunReport
        from envsnap.snapshot.model import Snapshot
        from envsnap.snapshot.redact import redact_snapshot
        from envsnap.snapshot.scrub import scrub_report

        try:
            document = load_document(path)
            from envsnap.inprocess.verify.report import VerifyReport

            if not isinstance(document, (RunReport, Snapshot, VerifyReport)):  # a fleet folder: the Fleet tab
                from envsnap.tui.messages import FleetLoaded

                self.post_message(FleetLoaded(document, path))
                return
            # A hand-edited file may hold secrets: both kinds are scrubbed as their writers do.
            if isinstance(document, RunReport):
                self.post_message(RunReportLoaded(scrub_report(document), path))
                return
            if isinstance(document, VerifyReport):  # envsnap.verify's report: its own screen
                from envsnap.tui.screens.verify import VerifyScreen

                self.call_from_thread(self._show_document, VerifyScreen(scrub_report(document), path))
                return
            snapshot = _evaluated(redact_snapshot(document))
        except BadInput as err:
            self.post_message(SnapshotLoadFailed(str(err)))
            return
        except Exception as err:  # a bug in a migration or rule must not crash the viewer
            self.post_message(SnapshotLoadFailed(f"{path}: {type(err).__name__}: {err}"))
            return
        self.post_message(SnapshotCollected(snapshot, path))

    def _start_collection(self) -> None:
        """Probe the machine, once (after the first telemetry sample, or its timeout)."""
        if self._collection_started or not self.live:
            return
        self._collection_started = True
        if self._probes_timer is not None:
            self._probes_timer.stop()  # the sample came first: the fallback must not linger
        self._collect_snapshot()
        # Reading the folder's headers imports the YAML store (PyYAML, packaging): after the card too.
        self._list_snapshots()
        self.main.call_after_refresh(self.main.build_hidden_panes)

    def on_probe_finished(self, message: ProbeFinished) -> None:
        if message.partial is not None and self.main.snapshot is None:
            self.main.partial = message.partial
        self.main.probe_runs = {**self.main.probe_runs, message.run.name: message.run}

    def on_snapshot_collected(self, message: SnapshotCollected) -> None:
        self._close_run_view()  # the file was rewritten as a snapshot and re-read (r)
        self.main.load_error = None
        self.main.snapshot = message.snapshot
        if self._save_queued and self.live:
            self._save_queued = False
            self._start_save()
        if message.path is not None:
            telemetry = message.snapshot.telemetry
            if telemetry is None:
                self.main.telemetry_status = "no telemetry recorded in this snapshot"
                self.main.telemetry = TelemetryState(
                    _empty_sample(message.snapshot.meta.captured_at), recorded=True
                )
            else:
                self.main.telemetry_status = f"recorded at {telemetry.captured_at} · not live"
                self.main.telemetry = TelemetryState(
                    telemetry, TelemetryHistory().add(telemetry), recorded=True
                )

    def on_snapshot_load_failed(self, message: SnapshotLoadFailed) -> None:
        if self._save_queued:
            self._save_queued = False
            self.notify("Not saved: probing failed.", severity="error")
        self._close_run_view()  # a re-read report that no longer loads shows the error state
        self.main.load_error = message.error
        if not self.live:
            self.main.telemetry_status = "no telemetry: the snapshot could not be read"
        self.notify(
            message.error,
            title="Cannot open snapshot" if not self.live else "Probing failed",
            severity="error",
            timeout=10,
            markup=False,
        )

    # ------------------------------------------------------------------ fleet folder

    def on_fleet_loaded(self, message: Any) -> None:
        from envsnap.tui.screens.fleet import FleetScreen

        self.main.load_error = None
        self.main.source = f"fleet folder {message.path} · read-only"
        self._show_document(FleetScreen(message.document, message.path))

    def _show_document(self, screen: Screen[Any]) -> None:
        """Show a file that has no snapshot tabs (a verify report, a fleet folder) on its own screen.

        It replaces the screens over the tabs (a re-read with r replaces it), and it stays the
        bottom of what is shown: esc and the digits do not uncover the empty tabs beneath.
        """
        while self.screen is not self.main and len(self.screen_stack) > 1:
            self.pop_screen()
        self.document_screen = screen
        self.push_screen(screen)

    # ------------------------------------------------------------------ run report

    def on_run_report_loaded(self, message: RunReportLoaded) -> None:
        from envsnap.tui.screens.run import RunScreen

        self.run_report = message.report
        self.main.load_error = None
        self.main.source = f"run report {message.path} · read-only"
        self.main.telemetry_status = "a run report: its timeline is on the Run view"
        for screen in self.screen_stack:
            if isinstance(screen, RunScreen):
                screen.report = message.report  # re-read (r): redrawn in place
                return
        self.push_screen(RunScreen(message.report, message.path))

    def _in_run_view(self) -> bool:
        """True (and says so) when the opened file has no snapshot tabs (a run or verify report, a fleet)."""
        if self.run_report is not None:
            kind = "an `envsnap run` report"
        elif self.document_screen is not None:
            kind = "an `envsnap.verify` report" if self.document_screen.id != "fleet" else "a fleet folder"
        else:
            return False
        self.notify(f"This file is {kind}: it has no snapshot tabs.", severity="warning")
        return True

    def _close_run_view(self) -> None:
        if self.run_report is None:
            return
        self.run_report = None
        while self.screen is not self.main and len(self.screen_stack) > 1:
            self.pop_screen()

    # ------------------------------------------------------------------ telemetry loop

    def sample_now(self) -> None:
        """Take a sample at once instead of at the next tick (right after the one in flight, if any).

        Does nothing while paused.
        """
        if self._sampling:
            self._sample_again = True  # one in flight: the next starts as soon as it is done
            return
        if self._sample_timer is not None:
            self._sample_timer.stop()
        self._schedule_sample()

    def _schedule_sample(self) -> None:
        """Start one sampling worker unless one is running or sampling is paused."""
        self._sample_timer = None
        if self._paused or self._sampling or not self.live:
            return
        self._sampling = True
        self._sample_telemetry()

    @work(thread=True, group="metrics", exit_on_error=False, description="Sampling telemetry")
    def _sample_telemetry(self) -> bool:
        """Read every backend once, join processes and extend history; True when the sample had errors."""
        try:
            if self._sampler is None:
                self._sampler = call_cancellable(self._sampler_factory, name="envsnap-sampler-open")
            sampler = self._sampler
            sample = call_cancellable(sampler.sample, name="envsnap-sample")
            history = self._history.add(sample)
            if self._last_sample is None and not get_current_worker().is_cancelled:
                # The first cards go up before psutil is imported and asked (tens of ms at start);
                # the same sample follows with its processes and the host line.
                self.post_message(SampleTaken(sample, history, {}))
            pids = sample_pids(sample)
            processes = dict(call_cancellable(lambda: self._processes.lookup(pids))) if pids else {}
            host = call_cancellable(self._host_load, name="envsnap-host-load")
        except Cancelled:
            return False
        if not get_current_worker().is_cancelled:
            self.post_message(SampleTaken(sample, history, processes, host))
        return bool(sample.errors)

    def _host_load(self) -> HostLoad | None:
        try:
            return self._host.read()
        except Exception:  # the host line is extra: a failing read never fails the GPU sample
            return None

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "metrics" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        failed = event.state == WorkerState.ERROR or bool(worker.result)
        self._failures = self._failures + 1 if failed else 0
        delay = self.retry_delay_s
        if event.state == WorkerState.ERROR:
            self.post_message(SamplerFailed(f"{type(worker.error).__name__}: {worker.error}", delay))
        self._sampling = False
        if self._sample_again:
            self._sample_again, delay = False, 0.0
        if not self._paused:
            self._sample_timer = self.set_timer(delay, self._schedule_sample, name="envsnap-next-sample")

    def on_main_screen_tabs_ready(self) -> None:
        # A sample taken before the tabs existed is drawn now: the probes follow it (see below).
        if self._last_sample is not None and not self._collection_started:
            self.main.call_after_refresh(self._start_collection)

    def on_sample_taken(self, message: SampleTaken) -> None:
        # The probes (imports, subprocesses) start once this sample is on screen, not while it is
        # drawn. The first sample can be in before the tab strip is (the sampler opens while the
        # first frame is laid out): then the probes wait for the tabs (on_main_screen_tabs_ready).
        if not self._collection_started and self.main.tabs_ready:
            self.main.call_after_refresh(self._start_collection)
        sample = message.sample
        self._last_sample = sample
        errors = sample.errors or ()
        if errors and errors != self._last_errors:
            self.notify(
                "; ".join(errors),
                title="Telemetry backend failing",
                severity="error",
                timeout=8,
                markup=False,
            )
        elif self._last_errors and not errors:
            self.notify("Telemetry recovered.", severity="information")
        self._last_errors = errors
        self.main.telemetry_error = "; ".join(errors) if errors else None
        if not self._paused:
            when = sample.captured_at.replace("T", " ").rstrip("Z")[:19]
            self.main.telemetry_status = f"live · every {self.interval_s:g} s · updated {when} UTC"
        self.main.telemetry = TelemetryState(
            sample, dict(message.history), dict(message.processes), host=message.host
        )

    def on_sampler_failed(self, message: SamplerFailed) -> None:
        self._start_collection()
        self.main.telemetry_error = f"sampling failed: {message.error} (retrying in {message.retry_in_s:g} s)"
        if self._failures == 1:
            self.notify(
                message.error, title="Telemetry sampling failed", severity="error", timeout=8, markup=False
            )

    # ------------------------------------------------------------------ save, list, diff

    @work(thread=True, exclusive=True, group="save", exit_on_error=False, description="Saving snapshot")
    def _save_snapshot(self, snapshot: Snapshot, sample: Sample | None) -> None:
        from msgspec.structs import replace

        from envsnap import api
        from envsnap.errors import BadInput

        meta = replace(snapshot.meta, captured_at=defaults.capture_time(self._clock()))
        state = replace(snapshot, meta=meta, telemetry=sample or snapshot.telemetry)
        try:
            path = api.save(state, folder=self.snapshot_dir)
        except BadInput as err:
            self.post_message(SaveFailed(str(err)))
            return
        except Exception as err:  # reported in a toast; the session goes on
            self.post_message(SaveFailed(f"{type(err).__name__}: {err}"))
            return
        self.post_message(SnapshotSaved(path))

    def on_snapshot_saved(self, message: SnapshotSaved) -> None:
        self._saving = False
        self.notify(f"Saved {message.path}", title="Snapshot saved", timeout=6, markup=False)
        self._list_snapshots()

    def on_save_failed(self, message: SaveFailed) -> None:
        self._saving = False
        self.notify(message.error, title="Save failed", severity="error", timeout=10, markup=False)

    @work(
        thread=True, exclusive=True, group="snapshots", exit_on_error=False, description="Listing snapshots"
    )
    def _list_snapshots(self) -> None:
        from envsnap.tui.catalog import read_entries

        self.post_message(SnapshotsListed(self.snapshot_dir, read_entries(self.snapshot_dir)))

    def on_snapshots_listed(self, message: SnapshotsListed) -> None:
        self.main.entries = message.entries

    @on(SnapshotsPane.DiffRequested)
    def _diff_requested(self, message: SnapshotsPane.DiffRequested) -> None:
        if message.old is None and self.snapshot is None:
            self.notify("This machine is still being probed; diff again in a moment.", severity="warning")
            return
        self._diff_snapshots(message.old, message.new, self.snapshot)

    @work(thread=True, exclusive=True, group="diff", exit_on_error=False, description="Diffing snapshots")
    def _diff_snapshots(self, base: Path | None, target: Path, current: Snapshot | None) -> None:
        from envsnap import api
        from envsnap.compare.diff import diff, not_compared
        from envsnap.errors import BadInput
        from envsnap.snapshot.finalize import checked
        from envsnap.tui.overview_rows import working_summaries

        try:
            # Files are untrusted, as in `envsnap diff`: redacted, fingerprints recomputed.
            if base is None:
                assert current is not None
                old, new = checked(api.load(target))[0], current
                labels = (target.name, "this machine" if self.live else f"{self.snapshot_path} (opened)")
            else:
                old, new = checked(api.load(base))[0], checked(api.load(target))[0]
                labels = (base.name, target.name)
            changes = tuple(diff(old, new))
            unknown = tuple(f"{section} (absent in {side})" for section, side in not_compared(old, new))
            working = working_summaries(changes, old, new)
        except BadInput as err:
            self.post_message(DiffFailed(str(err)))
            return
        except Exception as err:  # a diff bug is reported, never a crash
            self.post_message(DiffFailed(f"diff failed: {type(err).__name__}: {err}"))
            return
        self.post_message(DiffComputed(labels[0], labels[1], changes, unknown, working))

    def on_diff_computed(self, message: DiffComputed) -> None:
        from envsnap.tui.screens.diff import DiffScreen

        self.push_screen(
            DiffScreen(
                message.old_label, message.new_label, message.changes, message.not_compared, message.working
            )
        )

    def on_diff_failed(self, message: DiffFailed) -> None:
        self.notify(message.error, title="Diff", severity="error", timeout=8, markup=False)


def next_delay_s(interval_s: float, failures: int) -> float:
    """The sampling delay after ``failures`` consecutive failed samples: doubling, capped at 30 s."""
    return interval_s if failures == 0 else min(interval_s * 2**failures, MAX_RETRY_DELAY_S)


def _evaluated(snapshot: Snapshot) -> Snapshot:
    """Attach the rules' findings unless the snapshot already carries them.

    A live collection arrives without findings; a saved file shows the findings it was saved
    with (``envsnap check FILE`` re-evaluates with the current rules).
    """
    if snapshot.findings is not None:
        return snapshot
    from envsnap import api

    return api.with_findings(snapshot)


def _empty_sample(captured_at: str) -> Sample:
    from envsnap.snapshot.model import Sample  # the model (and msgspec) load after the first frame

    return Sample(captured_at=captured_at)
