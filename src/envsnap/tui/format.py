"""Short human renderings of model values for the TUI: sizes, percents, watts, clocks.

One place for units and for the "unknown" marker, so every screen says "–" for a value the
driver did not report instead of inventing a zero.
"""

from __future__ import annotations

from collections.abc import Iterable

from envsnap.render.summary import human_bytes

UNKNOWN = "–"
"""Shown where the model holds ``None`` (not reported)."""

__all__ = ["UNKNOWN", "clocks", "gib_pair", "human_bytes", "percent", "temperature", "watts", "watts_pair"]


def percent(value: float | None) -> str:
    """``97.0`` -> ``97%``."""
    return UNKNOWN if value is None else f"{value:.0f}%"


def temperature(value_c: float | None) -> str:
    """``66.0`` -> ``66 °C``."""
    return UNKNOWN if value_c is None else f"{value_c:.0f} °C"


def watts(value: float | None) -> str:
    """``232.8`` -> ``233 W``."""
    return UNKNOWN if value is None else f"{value:.0f} W"


def watts_pair(draw_watts: float | None, limit_watts: float | None) -> str:
    """``232/250 W``, or whichever half is known."""
    if draw_watts is None and limit_watts is None:
        return UNKNOWN
    draw = UNKNOWN if draw_watts is None else f"{draw_watts:.0f}"
    limit = UNKNOWN if limit_watts is None else f"{limit_watts:.0f}"
    return f"{draw}/{limit} W"


def gib_pair(used_bytes: int | None, total_bytes: int | None) -> str:
    """``30.9/31.7 GiB`` (both in GiB so the pair reads as one fraction)."""
    gib = 1024**3
    used = UNKNOWN if used_bytes is None else f"{used_bytes / gib:.1f}"
    total = UNKNOWN if total_bytes is None else f"{total_bytes / gib:.1f}"
    return f"{used}/{total} GiB"


def clocks(values_mhz: Iterable[int | None]) -> str:
    """``(1410, 1410, 1107)`` -> ``1410/1410/1107 MHz``; unknown parts as "–"."""
    parts = [UNKNOWN if value is None else str(value) for value in values_mhz]
    return UNKNOWN if all(part == UNKNOWN for part in parts) else "/".join(parts) + " MHz"
