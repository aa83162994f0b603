"""The live one-line status of ``envsnap run``/``watch`` on a terminal's stderr.

A plain carriage-return line rather than a Rich Live region: the workload writes to the same
terminal at any moment, and a one-line ``\\r`` status is the only display that stays readable
between its lines (the next update simply redraws it). Only shown when stderr is a terminal.
"""

from __future__ import annotations

from typing import TextIO

from envsnap.live.monitor import LiveState

_CLEAR = "\r\x1b[2K"


class StatusLine:
    """Redraws one status line on each monitor tick.

    Args:
        stream: where to draw (stderr).
        width: longest line drawn, in characters (a wrapped status line can't be redrawn).
    """

    def __init__(self, stream: TextIO, width: int = 100) -> None:
        self._stream = stream
        self._width = width
        self._drawn = False

    def __call__(self, state: LiveState) -> None:
        """Draw the line for the current state (called by the monitor thread under its lock)."""
        tick = state.last
        if tick is None:
            return
        gpus = " ".join(
            f"gpu{g.index} {'?' if g.util_percent is None else f'{g.util_percent:.0f}'}%"
            + ("*" if g.tree_memory_bytes else "")
            for g in tick.gpus
        )
        verdict = state.detector.verdict(has_devices=bool(state.devices))
        text = (
            f"envsnap ▸ {tick.t_s:6.0f} s · cpu {tick.cpu_percent:5.0f}% · {len(tick.processes)} proc · "
            f"{gpus or 'no gpu'} · so far: {verdict}"
        )
        self._stream.write(_CLEAR + text[: self._width])
        self._stream.flush()
        self._drawn = True

    def clear(self) -> None:
        """Erase the line before the final summary is printed."""
        if self._drawn:
            self._stream.write(_CLEAR)
            self._stream.flush()
            self._drawn = False
