"""A Sparkline on a fixed scale, for percentages: 47–50 % must not draw as a full swing.

Textual's Sparkline scales every series to its own minimum and maximum, which is right for bytes
(the Run view labels their range) but misleading for a utilization: a GPU idling at 47–50 % fills
the row as if it went from idle to flat out. This one draws from 0 to ``ceiling`` (100 for a GPU,
the larger of 100 and the peak for CPU, where 100 = one core). It keeps Textual's bucketing
(``SparklineRenderable._buckets``, what ``run_series.columns`` mirrors), so the suspicious-window
strip under the sparklines still lines up with their columns.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import RenderResult
from textual.renderables.sparkline import Sparkline as SparklineRenderable
from textual.widgets import Sparkline

_BARS = SparklineRenderable.BARS


def scaled_bars(values: Sequence[float], width: int, ceiling: float) -> str:
    """``width`` bar characters for ``values`` on 0..``ceiling``, each column the max of its bucket."""
    if width <= 0 or not values:
        return ""
    buckets = tuple(SparklineRenderable._buckets(list(values), num_buckets=width))
    step = len(buckets) / width
    top = len(_BARS) - 1
    bars = []
    for column in range(width):
        value = max(buckets[int(column * step)])
        level = int(max(0.0, min(1.0, value / ceiling)) * top) if ceiling > 0 else 0
        bars.append(_BARS[level])
    return "".join(bars)


class ScaledSparkline(Sparkline):
    """A one-row Sparkline drawn on 0..``ceiling`` instead of the data's own min..max."""

    def __init__(self, data: Sequence[float], *, ceiling: float, id: str | None = None) -> None:  # noqa: A002
        super().__init__(data, id=id)
        self.ceiling = ceiling

    def render(self) -> RenderResult:
        style = self.get_component_rich_style("sparkline--max-color")
        return Text(scaled_bars(list(self.data or ()), self.size.width, self.ceiling), style=style)
