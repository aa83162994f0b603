"""The live status of ``envsnap run``/``watch``, shown in the terminal's title, never in its text.

Why the title: the workload owns the terminal's text. It writes at any moment, often without a
newline (tqdm redraws one line with ``\\r``), and envsnap can't see those writes, so anything
envsnap draws *in* the text lands at whatever column the cursor happens to be in. A ``\\r``
status line glued itself onto the workload's next line (``… so far: no-accelerator step-2``) and
stayed in the scrollback; a periodic status *line* would still glue onto a half-drawn progress
bar. Interposing a pty between the workload and the terminal would fix that, at the price of
changing what the workload sees (job control, window size, isatty quirks). The title (OSC 2) is
the one display a terminal keeps apart from the text: updating it never moves the cursor, never
touches the scrollback, and terminals that don't show titles ignore the sequence.

The user's own title is saved first on the terminal's title stack (xterm's ``CSI 22;2 t``) and
restored at the end (``CSI 23;2 t``); terminals without a title stack ignore both. Shown only when
stderr is a terminal (and ``TERM`` is not ``dumb``); the verdict itself is printed on stderr at
the end, as before.
"""

from __future__ import annotations

import re
from typing import TextIO

from envsnap.live.monitor import LiveState
from envsnap.live.run_summary import plural

SAVE_TITLE = "\x1b[22;2t"
"""Push the window title onto the terminal's title stack (xterm XTWINOPS 22;2)."""
RESTORE_TITLE = "\x1b[23;2t"
"""Pop it back (XTWINOPS 23;2)."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def title_sequence(text: str) -> str:
    """OSC 2 (set window title) with ``text``, control characters removed so it can't end early."""
    return f"\x1b]2;{_CONTROL.sub(' ', text)}\x07"


def status_text(state: LiveState) -> str | None:
    """The status for the current state, or None before the first sample."""
    tick = state.last
    if tick is None:
        return None
    gpus = " ".join(
        f"gpu{g.index} {'?' if g.util_percent is None else f'{g.util_percent:.0f}'}%"
        + ("*" if g.tree_memory_bytes else "")
        for g in tick.gpus
    )
    verdict = state.detector.verdict(has_devices=bool(state.devices))
    processes = plural(len(tick.processes), "process", "processes")
    return (
        f"envsnap ▸ {tick.t_s:.0f} s · cpu {tick.cpu_percent:.0f}% · {processes} · "
        f"{gpus or 'no gpu'} · so far: {verdict}"
    )


class StatusTitle:
    """Sets the terminal title to the run's status on each monitor tick.

    Args:
        stream: the terminal (stderr).
        width: longest title written, in characters.
    """

    def __init__(self, stream: TextIO, width: int = 100) -> None:
        self._stream = stream
        self._width = width
        self._saved = False

    def __call__(self, state: LiveState) -> None:
        """Show the current state (called by the monitor thread under its lock)."""
        text = status_text(state)
        if text is None:
            return
        # One write per update, so it can't be split by the workload's own writes.
        prefix = "" if self._saved else SAVE_TITLE
        self._stream.write(prefix + title_sequence(text[: self._width]))
        self._stream.flush()
        self._saved = True

    def clear(self) -> None:
        """Give the terminal its title back (empty first, for terminals without a title stack)."""
        if self._saved:
            self._stream.write(title_sequence("") + RESTORE_TITLE)
            self._stream.flush()
            self._saved = False
