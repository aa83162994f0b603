"""Text gauges for the device cards: a fixed-scale sparkline and a fill bar.

Textual's Sparkline scales to the data's own min and max, which makes 96→98 % look like a full
swing; utilization needs a fixed 0–100 scale. Both gauges are plain characters, so they stay
readable with NO_COLOR and in light themes.
"""

from __future__ import annotations

from collections.abc import Sequence

_BLOCKS = " ▁▂▃▄▅▆▇█"


def spark(values_percent: Sequence[float], width: int) -> str:
    """The last ``width`` values as block characters on a 0–100 scale, right-aligned."""
    if width <= 0:
        return ""
    recent = values_percent[-width:]
    top = len(_BLOCKS) - 1
    chars = []
    for value in recent:
        level = round(max(0.0, min(100.0, value)) / 100.0 * top)
        # A non-zero reading never draws as blank: idle and "a little busy" must look different.
        chars.append(_BLOCKS[max(level, 1 if value > 0 else 0)])
    return " " * (width - len(chars)) + "".join(chars)


def bar(fraction: float | None, width: int) -> tuple[str, str]:
    """A fill bar as (filled, empty) character runs, so the caller can style each part."""
    if width <= 0:
        return "", ""
    if fraction is None:
        return "", "·" * width
    filled = round(max(0.0, min(1.0, fraction)) * width)
    return "█" * filled, "░" * (width - filled)
