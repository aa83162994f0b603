"""Random key sequences typed at full speed: the tab shown is the last digit's, and the app then idles.

A person typing ``1 2 3 4 5 1 2 3 4 5 3 4 2 5 4`` fast once wedged the app (issue 24): two tab
panes took focus from each other forever, the wrong tab stayed on show and CPU and memory grew.
Here every sequence is queued on the app's driver at once, as a terminal delivers fast typing
(no wait between keys, unlike ``pilot.press``), on the live app and on a snapshot file. After
each sequence the app must show what a small model of the documented keys says: the tab of the
last digit that was not typed into the Packages filter, and the help screen or not; no
exception; and, once idle, no timer or worker left running but the telemetry sampler's.

The sequences come from a seeded generator, so a failure names a sequence that replays.
``ENVSNAP_KEY_SEQUENCES`` sets how many per app (CI runs the default).
"""

from __future__ import annotations

import asyncio
import os
import random
from dataclasses import dataclass
from pathlib import Path

from textual import events
from textual.timer import Timer
from textual.widgets import Input
from textual.worker import WorkerState

from envsnap.snapshot import store
from envsnap.tui.app import EnvsnapApp
from envsnap.tui.screens.help import HelpScreen
from envsnap.tui.screens.main import TABS
from tests.tui.conftest import AppFactory, host_snapshot, recorded_findings, until_ready, wait_for

SEQUENCES = int(os.environ.get("ENVSNAP_KEY_SEQUENCES", "1500"))
"""Sequences per app; each is 1–12 keys."""
KEYS = ("1", "2", "3", "4", "5", "tab", "slash", "escape", "s", "p", "question_mark")
"""The documented keys, q (quit) left out. Digits are weighted up: they are what the test is about."""
WEIGHTS = (4, 4, 4, 4, 4, 2, 2, 2, 1, 1, 1)
SAMPLER_TIMER = "envsnap-next-sample"


@dataclass
class KeyModel:
    """What the documented keys do to what is on show: the tab, the help screen, the filter's focus."""

    tab: str = "overview"
    help: bool = False
    focus: str = "body"
    """On the main screen: "tabs" (the tab strip), "body" (the pane's table or scroll), "filter"."""

    def press(self, key: str) -> None:
        typing = not self.help and self.focus == "filter"
        if typing and len(key) == 1 or (typing and key in ("slash", "question_mark")):
            return  # text in the Packages filter (package names hold digits)
        if self.help and key in ("tab", "slash"):
            return  # the help screen's own focus; no filter there
        if key.isdigit():
            self.tab, self.help, self.focus = TABS[int(key) - 1], False, "body"
        elif key == "question_mark":
            self.help = not self.help
        elif key == "escape":
            if self.help:
                self.help = False
            elif self.focus == "filter":
                self.focus = "body"
        elif key == "slash":
            if not self.help and self.tab == "packages" and self.focus != "tabs":
                self.focus = "filter"
        elif key == "tab" and not self.help:
            order = ("tabs", "filter", "body") if self.tab == "packages" else ("tabs", "body")
            self.focus = order[(order.index(self.focus) + 1) % len(order)]


def sequences(seed: int, count: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [rng.choices(KEYS, WEIGHTS, k=rng.randint(1, 12)) for _ in range(count)]


async def type_fast(app: EnvsnapApp, keys: list[str]) -> None:
    """Queue every key at once on the driver, as a terminal delivers a fast typist's keys.

    Returns when the app has taken them all: a callback queued behind the keys has run. The
    state is checked then, with no pause for rendering between sequences (that is what lets
    thousands run in a CI-sized time, and what a fast typist does too).
    """
    for key in keys:
        char = {"slash": "/", "question_mark": "?", "tab": "\t", "escape": "\x1b"}.get(key, key)
        event = events.Key(key, char)
        event.set_sender(app)
        app.post_message(event)  # what the driver's reader does, minus its thread hop
    taken = asyncio.Event()
    app.call_later(lambda: app.call_later(taken.set))
    await taken.wait()


def running_timers(app: EnvsnapApp) -> list[str]:
    """Names of the timers that will still fire (not stopped, not paused), over the app and its DOM."""
    owners = [app, *app.screen_stack, *app.screen.walk_children(with_self=False)]
    names = []
    for owner in owners:
        for timer in list(owner._timers):
            if timer._task is not None and not timer._task.done() and timer._active.is_set():
                names.append(timer.name if not isinstance(owner, Input) else f"{timer.name} (input cursor)")
    return names


def shown(app: EnvsnapApp) -> tuple[str, bool, str]:
    focused = app.screen.focused if not isinstance(app.screen, HelpScreen) else None
    focus = "filter" if isinstance(focused, Input) else type(focused).__name__
    return app.main.active_tab, isinstance(app.screen, HelpScreen), focus


async def storm(app: EnvsnapApp, pilot: object, seed: int) -> None:
    model = KeyModel()
    for number, keys in enumerate(sequences(seed, SEQUENCES)):
        for key in keys:
            model.press(key)
        await type_fast(app, keys)
        where = f"sequence {number} (seed {seed}): {' '.join(keys)}"
        assert app.return_code is None and app._exception is None, where
        assert (app.main.active_tab, isinstance(app.screen, HelpScreen)) == (model.tab, model.help), (
            f"{where}: shown {shown(app)}, expected {model}"
        )
        assert len(app.screen_stack) == 1 + model.help, where
        # The screen's own focus follows the model too (a digit typed into the filter is text).
        assert (shown(app)[2] == "filter") == (model.focus == "filter" and not model.help), (
            f"{where}: shown {shown(app)}, expected {model}"
        )
        app.clear_notifications()  # s and p on a file answer with toasts; thousands would pile up


async def assert_idle(app: EnvsnapApp, pilot: object) -> None:
    """After the keys stop: nothing but the sampler keeps working."""
    app.clear_notifications()
    await wait_for(
        lambda: all(w.group == "metrics" for w in app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)),
        pilot,
    )
    await pilot.pause(0.3)  # type: ignore[attr-defined]
    tab = app.main.active_tab
    focused = app.screen.focused
    timers = [name for name in running_timers(app) if name != SAMPLER_TIMER and "(input cursor)" not in name]
    assert timers == [], f"timers still running after the keys stopped: {timers}"
    busy = [w for w in app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING) and w.group != "metrics"]
    assert busy == [], f"workers still running: {busy}"
    await pilot.pause(0.3)  # type: ignore[attr-defined]
    assert (app.main.active_tab, app.screen.focused) == (tab, focused), "focus or tab still moving while idle"


async def test_random_fast_keys_on_the_live_app(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        await storm(app, pilot, seed=24)
        await assert_idle(app, pilot)


async def test_random_fast_keys_on_a_snapshot_file(make_app: AppFactory, v100: object, tmp_path: Path) -> None:
    path = tmp_path / "gpu-node-01.yaml"
    store.save(host_snapshot(v100, recorded_findings()), path)  # type: ignore[arg-type]
    app = make_app(snapshot_path=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        await storm(app, pilot, seed=2024)
        await assert_idle(app, pilot)


def test_the_issue_sequence_is_in_the_model() -> None:
    model = KeyModel()
    for key in "1 2 3 4 5 1 2 3 4 5 3 4 2 5 4".split():
        model.press(key)
    assert model.tab == "checks"
    Timer  # noqa: B018  (imported for readers: running_timers reads Textual's Timer internals)
