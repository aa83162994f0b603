"""Where Rich output goes: a terminal gets it as drawn; a pipe or file gets it without padding.

Rich pads table cells to the console width; in a file that is trailing whitespace on every line,
which breaks ``diff`` and ``grep -x`` on saved reports. Off a terminal the output is captured and
each line's trailing spaces are stripped (colour is already off there; ``NO_COLOR`` is honoured
by Rich on a terminal too).
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from rich.console import Console


def print_out(renderable: Any, stream: TextIO | None = None, *, piped_width: int | None = None) -> None:
    """Print a Rich renderable on ``stream`` (stdout by default).

    Args:
        renderable: what to print.
        stream: where to; a terminal gets it as drawn.
        piped_width: the console width off a terminal (None: Rich's default of 80 columns).
    """
    stream = stream if stream is not None else sys.stdout
    console = Console(file=stream, highlight=False)
    if console.is_terminal:
        console.print(renderable)
        return
    console = Console(file=stream, highlight=False, width=piped_width)
    with console.capture() as captured:
        console.print(renderable)
    text = "\n".join(line.rstrip() for line in captured.get().splitlines())
    stream.write(text + "\n" if text else "")


def stderr_console() -> Console:
    """The console for diagnostics and progress (stderr)."""
    return Console(stderr=True, highlight=False)
