"""What the Run view draws from a run report: timeline series, their statistics, verdict badges.

Pure functions over ``live.run_report.RunReport`` (no Textual), so the numbers on screen are
tested without an app and ``screens/run.py`` only lays them out.

Textual's Sparkline scales each series to its own minimum and maximum: 96→98 % draws as a full
swing, and a flat 100 % as a flat bottom line. So every series is shown with its min, max and
mean, in the series' unit, and the labels carry the absolute level. ``columns`` reproduces the
Sparkline's bucketing, so a strip drawn under the sparklines (the suspicious windows) lines up
with their columns.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

from envsnap.live.verdict import sustain_window
from envsnap.snapshot.safe_text import one_line

if TYPE_CHECKING:
    from envsnap.live.run_report import RunReport, Tick, Window

Unit = Literal["percent", "bytes"]

VERDICT_BADGES: dict[str, tuple[str, str]] = {
    "gpu-active": ("● gpu-active", "$success"),
    "cpu-fallback-suspected": ("✖ cpu-fallback-suspected", "$error"),
    "gpu-idle-while-busy": ("▲ gpu-idle-while-busy", "$warning"),
    "no-accelerator": ("○ no-accelerator", "$text-muted"),
    "inconclusive": ("? inconclusive", "$text-muted"),
}
"""Badge text and theme color per verdict: a symbol and the verdict's own word, readable without
color (NO_COLOR). Fallback is an error, an idle held GPU a warning, as ``envsnap run`` colors them."""

WINDOW_MARKS: dict[str, tuple[str, str]] = {
    "cpu-fallback-suspected": ("━", "$error"),
    "gpu-idle-while-busy": ("═", "$warning"),
}
"""Strip character and color per window kind; distinct characters keep the kinds apart without color."""

_GIB = 1024**3
_MIB = 1024**2


@dataclass(frozen=True)
class Series:
    """One sparkline: a quantity over the run's samples."""

    label: str
    values: tuple[float, ...]
    unit: Unit
    missing: int = 0
    """Samples without a reading (a device that did not report it then); left out of ``values``."""

    @property
    def stats(self) -> str:
        """``min 12  max 100  mean 93 %``, in one unit for the three numbers."""
        if not self.values:
            return "not reported"
        low, high = min(self.values), max(self.values)
        mean = sum(self.values) / len(self.values)
        if self.unit == "percent":
            text = f"min {low:.0f}  max {high:.0f}  mean {mean:.0f} %"
        else:
            scale, unit = (_GIB, "GiB") if high >= _GIB else (_MIB, "MiB")
            text = f"min {low / scale:.1f}  max {high / scale:.1f}  mean {mean / scale:.1f} {unit}"
        return text if not self.missing else f"{text} ({self.missing} unread)"


def verdict_badge(verdict: str) -> tuple[str, str]:
    """Badge text and color of a verdict (an unknown one is shown as it is, muted)."""
    return VERDICT_BADGES.get(verdict, (f"? {one_line(verdict)}", "$text-muted"))


def timeline_series(report: RunReport) -> list[Series]:
    """The tree's CPU, then utilization and memory used of every device seen, in device order."""
    ticks = report.timeline
    series = [Series("tree CPU", tuple(t.cpu_percent for t in ticks), "percent")]
    for vendor, index in _devices(ticks):
        label = f"{one_line(vendor)} {index}"
        utils = [_gpu_value(t, vendor, index, "util_percent") for t in ticks]
        memory = [_gpu_value(t, vendor, index, "memory_used_bytes") for t in ticks]
        series.append(_series(f"{label} util", utils, "percent"))
        series.append(_series(f"{label} memory", memory, "bytes"))
    return series


def _devices(ticks: Sequence[Tick]) -> list[tuple[str, int]]:
    seen: dict[tuple[str, int], None] = {}
    for tick in ticks:
        for gpu in tick.gpus:
            seen.setdefault((gpu.vendor, gpu.index), None)
    return sorted(seen)


def _gpu_value(tick: Tick, vendor: str, index: int, field: str) -> float | None:
    for gpu in tick.gpus:
        if gpu.vendor == vendor and gpu.index == index:
            value: float | None = getattr(gpu, field)
            return value
    return None


def _series(label: str, values: Sequence[float | None], unit: Unit) -> Series:
    known = tuple(float(v) for v in values if v is not None)
    return Series(label, known, unit, missing=len(values) - len(known))


def columns(count: int, width: int) -> list[range]:
    """Which data points each of ``width`` columns of Textual's Sparkline summarizes.

    The same arithmetic as ``textual.renderables.sparkline.Sparkline``: ``width`` equal slices
    (empty ones dropped), stretched back over ``width`` columns when there are fewer points.
    """
    if count <= 0 or width <= 0:
        return []
    if count == 1:
        return [range(1)] * width  # one point fills every column
    step = Fraction(count, width)
    buckets = [range(int(step * n), int(step * (n + 1))) for n in range(width)]
    buckets = [bucket for bucket in buckets if len(bucket)]
    # Summed step by step as the renderer does: n * stretch can round the other way at a boundary.
    stretch, position, out = len(buckets) / width, 0.0, []
    for _ in range(width):
        out.append(buckets[int(position)])
        position += stretch
    return out


def window_marks(times_s: Sequence[float], windows: Sequence[Window], width: int) -> list[str | None]:
    """Per sparkline column, the kind of the suspicious window its samples fall in, or None.

    A window covers the samples with ``start_s < t_s <= end_s`` (a sample stands for the interval
    before it, so the window starts one interval before its first sample).
    """
    marks: list[str | None] = []
    for bucket in columns(len(times_s), width):
        kind = None
        for window in windows:
            if any(window.start_s < times_s[i] <= window.end_s + 1e-9 for i in bucket):
                kind = window.kind
                break
        marks.append(kind)
    return marks


def command_line(report: RunReport) -> str:
    """The (already redacted) command as one shell-quoted line; ``–`` when not recorded."""
    if not report.command:
        return "–"
    return one_line(shlex.join(report.command))


def seconds(value_s: float) -> str:
    """``12.3456`` -> ``12.3 s``; ``4000`` -> ``1 h 6 min 40 s`` (long runs read better in hours)."""
    if value_s < 120:
        return f"{round(value_s, 1):g} s"
    whole = round(value_s)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h"] if hours else []
    parts += [f"{minutes} min", f"{secs} s"]
    return " ".join(parts)


def thresholds_line(report: RunReport) -> str:
    """The numbers the verdict was computed with, as one sentence fragment."""
    limits = report.thresholds
    text = (
        f"CPU-bound: demand ≥ {limits.cpu_busy_percent:g}% (used + waited for; 100 = one core) "
        f"for ≥ {sustain_window(limits, report.duration_s):g} s · "
        f"GPU idle ≤ {limits.gpu_idle_percent:g}% · sampled every {limits.interval_s:g} s"
    )
    return text if report.expect is None else f"{text} · expect {report.expect}"


def outcome_line(report: RunReport) -> str:
    """How the workload (or the watch) ended: exit status, signals, interruption."""
    parts = [f"envsnap {report.mode}", f"PID {report.pid}"]
    if report.exit_code is not None:
        parts.append(f"exit {report.exit_code}" + (f" ({one_line(report.signal)})" if report.signal else ""))
    elif report.interrupted:
        parts.append(f"watch stopped ({one_line(report.signal or 'interrupted')}); the process still ran")
    else:
        parts.append("process ended")
    if report.forwarded_signals:
        parts.append("forwarded " + ", ".join(one_line(s) for s in report.forwarded_signals))
    return " · ".join(parts)


def timeline_heading(report: RunReport) -> str:
    """``Timeline · 24 samples over 24.6 s`` (and how much of a long run was kept)."""
    ticks = report.timeline
    if not ticks:
        return f"Timeline · no samples kept ({report.samples} taken)"
    text = f"Timeline · {len(ticks)} samples over {seconds(report.duration_s)}"
    if report.timeline_stride > 1:
        text += f" (1 in {report.timeline_stride} of {report.samples} kept)"
    return text
