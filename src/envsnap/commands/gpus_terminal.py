"""``envsnap gpus --watch``: redraw the frame in place until Ctrl-C, without a full-screen UI.

On a terminal each frame goes to the top-left corner, every line ends with "erase to end of
line" and the frame with "erase below", so a shorter frame leaves nothing stale behind; the
frame is cut to the terminal's height and width, because a line that wraps or a frame that
scrolls would make the next redraw land in the wrong place. The cursor is hidden while drawing
and shown again however the loop ends (Ctrl-C, SIGTERM, an error). Off a terminal (a pipe, a
file) frames are appended one after the other, with ``--json`` as JSON Lines (one object a frame).

Ctrl-C is how a watch ends, so it exits 0 (as ``gpustat -i`` and ``watch`` do); SIGTERM exits 143.
"""

from __future__ import annotations

import shutil
import signal
import time
from collections.abc import Callable
from types import FrameType
from typing import TextIO

from envsnap.live.gpu_view import GpuReader
from envsnap.render.gpus import clip_line, frame_text, gpus_json, gpus_lines

HOME = "\x1b[H"
CLEAR_SCREEN = "\x1b[2J"
CLEAR_EOL = "\x1b[K"
CLEAR_BELOW = "\x1b[J"
HIDE_CURSOR = "\x1b[?25l"
SHOW_CURSOR = "\x1b[?25h"


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def fit_height(lines: list[str], rows: int) -> list[str]:
    """At most ``rows - 1`` lines (the last row stays free so nothing scrolls), saying what was cut."""
    room = max(rows - 1, 1)
    if len(lines) <= room:
        return lines
    kept = lines[: max(room - 1, 0)]
    return [*kept, f"… {len(lines) - len(kept)} more lines (a taller terminal shows them)"]


def watch(
    reader: GpuReader,
    interval: float,
    out: TextIO,
    *,
    processes: bool = True,
    as_json: bool = False,
    colour: bool = False,
    frames: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Show a frame every ``interval`` seconds until Ctrl-C (or ``frames`` frames); the exit code.

    Args:
        reader: the opened backends.
        interval: seconds from the start of one frame to the start of the next.
        out: where frames go; a terminal gets them redrawn in place.
        processes: read and show each GPU's processes.
        as_json: one JSON object per frame, one per line.
        colour: ANSI colours (the caller has checked the terminal and ``NO_COLOR``).
        frames: stop after this many frames (tests); None: until interrupted.
        sleep: how to wait (tests pass a fake).
        clock: monotonic seconds (tests pass a fake).
    """
    in_place = out.isatty() and not as_json
    try:
        previous: object = signal.signal(signal.SIGTERM, _terminated)
    except ValueError:  # not the main thread: SIGTERM keeps its handler
        previous = None
    shown = 0
    try:
        if in_place:
            out.write(HIDE_CURSOR + CLEAR_SCREEN)
        while True:
            started = clock()
            view = reader.read(processes=processes)
            if as_json:
                out.write(gpus_json(view, processes=processes, indent=None) + "\n")
            elif in_place:
                size = shutil.get_terminal_size()
                lines = gpus_lines(view, colour=colour, width=size.columns, processes=processes)
                fitted = [clip_line(line, size.columns) for line in fit_height(lines, size.lines)]
                out.write(HOME + "".join(f"{line}{CLEAR_EOL}\n" for line in fitted))
                out.write(CLEAR_BELOW)
            else:
                out.write(frame_text(gpus_lines(view, processes=processes)) + "\n")
            out.flush()
            shown += 1
            if frames is not None and shown >= frames:
                return 0
            sleep(max(0.0, interval - (clock() - started)))
    except KeyboardInterrupt:
        return 0
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)  # type: ignore[arg-type]
        if in_place:
            out.write(SHOW_CURSOR)
            out.flush()
