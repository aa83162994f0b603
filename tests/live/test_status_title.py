"""The live status goes to the terminal's title: saved, updated, restored; never into the text."""

from __future__ import annotations

import io

from envsnap.live.monitor import LiveState
from envsnap.live.run_report import Thresholds, Tick
from envsnap.live.status_line import RESTORE_TITLE, SAVE_TITLE, StatusTitle, status_text, title_sequence
from envsnap.live.verdict import Detector

LIMITS = Thresholds()


def _state(t_s: float, processes: int = 1) -> LiveState:
    from envsnap.live.run_report import ProcessTick

    state = LiveState(detector=Detector(LIMITS))
    state.last = Tick(
        t_s=t_s,
        cpu_percent=98.0,
        rss_bytes=1,
        threads=1,
        processes=tuple(ProcessTick(pid=100 + i, cpu_percent=98.0 / processes) for i in range(processes)),
    )
    return state


def test_title_sequence_cannot_be_ended_early_by_its_text() -> None:
    assert title_sequence("a\x07b\x1b]0;x\nc") == "\x1b]2;a b ]0;x c\x07"


def test_status_text_before_and_after_the_first_sample() -> None:
    assert status_text(LiveState(detector=Detector(LIMITS))) is None
    assert (
        status_text(_state(12.0)) == "envsnap ▸ 12 s · cpu 98% · 1 process · no gpu · so far: no-accelerator"
    )
    assert "· 2 processes ·" in (status_text(_state(12.0, processes=2)) or "")


def test_the_title_is_saved_once_updated_and_restored() -> None:
    stream = io.StringIO()
    status = StatusTitle(stream)

    status(LiveState(detector=Detector(LIMITS)))  # nothing sampled yet: nothing written
    assert stream.getvalue() == ""
    status(_state(1.0))
    status(_state(2.0))
    status.clear()
    status.clear()  # a second clear writes nothing

    written = stream.getvalue()
    assert written.count(SAVE_TITLE) == 1
    assert written.startswith(SAVE_TITLE + "\x1b]2;envsnap ▸ 1 s ·")
    assert written.endswith(title_sequence("") + RESTORE_TITLE)
    assert written.count(RESTORE_TITLE) == 1
    # Nothing that moves the cursor or erases text, and no newline, ever reaches the terminal.
    for forbidden in ("\r", "\n", "\x1b[2K", "\x1b[K"):
        assert forbidden not in written
