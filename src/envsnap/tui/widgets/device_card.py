"""One GPU's card: identity, memory and power bars, utilization sparklines, clocks and processes.

The card renders a ``DeviceView`` (a DeviceSample plus the static facts, history and process
details the pane joined to it) into one ``Content``. Rendering at the card's current width keeps
sparklines and bars filling the space from 80 columns to wide terminals, and a single render per
sample keeps the CPU cost of eight live cards low.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from envsnap.tui import format as fmt
from envsnap.tui.telemetry import DeviceHistory, ProcessInfo, memory_activity_percent
from envsnap.tui.widgets.gauges import bar, spark

if TYPE_CHECKING:
    from envsnap.snapshot.model import DeviceSample, GpuProcess

MAX_PROCESS_ROWS = 4
"""Process rows per card; the rest are counted, so eight cards still fit a scroll or two."""

_VENDOR = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel", "mps": "Apple"}


@dataclass(frozen=True)
class DeviceView:
    """Everything one card shows."""

    sample: DeviceSample
    arch: str | None = None
    """``sm_70`` for NVIDIA, the gfx target for AMD."""
    pcie_max: str | None = None
    """Maximum PCIe link, e.g. "3×16", from the snapshot's static facts."""
    mig: str | None = None
    """MIG summary, e.g. "MIG on · 4 instances: 1g.10gb ×4"."""
    history: DeviceHistory = field(default_factory=DeviceHistory)
    processes: Mapping[int, ProcessInfo] = field(default_factory=dict)
    process_sort: str = "memory"
    """Process rows by "memory" (GPU memory, largest first), "cpu" (CPU %, busiest first) or "pid"."""


class DeviceCard(Widget):
    """A bordered card for one device; update it by assigning ``view``."""

    DEFAULT_CSS = """
    DeviceCard {
        height: auto;
        border: round $primary 60%;
        border-title-color: $text;
        border-title-style: bold;
        border-subtitle-color: $success;
        padding: 0 1;
    }
    DeviceCard.-lost {
        border: round $error;
        border-subtitle-color: $error;
    }
    DeviceCard.-failed {
        border: round $warning;
        border-subtitle-color: $warning;
    }
    """

    view: reactive[DeviceView | None] = reactive(None)
    """The device to draw; assigning a new one redraws the card (re-laid out only if its height changed)."""

    def __init__(self, view: DeviceView, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.set_reactive(DeviceCard.view, view)
        self._title_from(view)

    def watch_view(self, old: DeviceView | None, view: DeviceView | None) -> None:
        if view is None:
            return
        self._title_from(view)
        # A layout pass costs far more than a repaint; most samples only change numbers.
        if old is None or _height_key(old) != _height_key(view):
            self.refresh(layout=True)

    def _title_from(self, view: DeviceView) -> None:
        device = view.sample
        name = device.name or "unknown device"
        # Content, not a str: a str title is parsed as markup, and "[/]" in a GPU name would crash.
        self.border_title = Content(f"{_VENDOR.get(device.vendor, device.vendor)} {device.index} · {name}")
        self.border_subtitle = {"ok": "ok", "lost": "GPU LOST", "failed": "FAILED"}[device.status]
        self.set_class(device.status == "lost", "-lost")
        self.set_class(device.status == "failed", "-failed")

    def render(self) -> Content:
        view = self.view
        if view is None:
            return Content("")
        return Content("\n").join(card_lines(view, max(self.content_size.width, 20)))


def _height_key(view: DeviceView) -> tuple[object, ...]:
    """What decides the card's height: status, MIG line, throttle line wrap, process rows."""
    device = view.sample
    return (device.status, bool(view.mig), min(len(device.processes or ()), MAX_PROCESS_ROWS + 1))


def card_lines(view: DeviceView, width: int) -> list[Content]:
    """The card's lines at a given content width (a function so tests can check text directly)."""
    device = view.sample
    lines = [_facts_line(view)]
    if view.mig:
        lines.append(Content.styled(view.mig, "$text-muted"))
    if device.status != "ok":
        what = "GPU lost" if device.status == "lost" else "read failed"
        lines.append(Content.assemble((f"{what}: ", "$error bold"), device.reason or "no reason given"))
        return lines
    half = (width - 3) // 2
    rest = width - 3 - half
    used, total = device.memory_used_bytes, device.memory_total_bytes
    vram = _bar_line("vram", _fraction(used, total), half, fmt.gib_pair(used, total))
    draw, limit = device.power_draw_watts, device.power_limit_watts
    power = _bar_line("power", _fraction(draw, limit), rest, fmt.watts_pair(draw, limit))
    lines.append(_pair(vram, power, half))
    gpu = _spark_line("gpu", device.gpu_util_percent, view.history.gpu_util_percent, half)
    memory = _spark_line("mem bw", memory_activity_percent(device), view.history.memory_util_percent, rest)
    lines.append(_pair(gpu, memory, half))
    clocks = fmt.clocks((device.graphics_clock_mhz, device.sm_clock_mhz, device.memory_clock_mhz))
    clock_line = Content.assemble(("clocks ", "$text-muted"), f"{clocks} (gfx/sm/mem)")
    if device.throttle_reasons:
        clock_line += Content.assemble(
            ("  throttle ", "$text-muted"), (", ".join(device.throttle_reasons), "$warning")
        )
    lines.append(clock_line)
    lines.extend(_process_lines(device.processes or (), view.processes, width, view.process_sort))
    return lines


def _fraction(part: float | None, whole: float | None) -> float | None:
    return None if part is None or not whole else part / whole


def _facts_line(view: DeviceView) -> Content:
    device = view.sample
    pcie = None
    if device.pcie_link_gen is not None or device.pcie_link_width is not None:
        pcie = f"PCIe {device.pcie_link_gen or '?'}×{device.pcie_link_width or '?'}"
        if view.pcie_max:
            pcie += f" (max {view.pcie_max})"
    elif view.pcie_max:
        pcie = f"PCIe max {view.pcie_max}"
    parts = [
        view.arch,
        device.pci_bus_id,
        pcie,
        fmt.temperature(device.temperature_c) if device.temperature_c is not None else None,
        f"fan {fmt.percent(device.fan_percent)}" if device.fan_percent is not None else None,
    ]
    return Content(" · ".join(p for p in parts if p))


_LABEL_WIDTH = 7
_VALUE_WIDTH = {"vram": 13, "power": 9}
"""Room for each bar's value ("31.4/31.7 GiB", "233/250 W"), so bars line up from card to card."""


def _pair(left: Content, right: Content, left_width: int) -> Content:
    """Two gauges side by side, so four gauges take two lines of the card."""
    return (
        left.pad_right(max(left_width - left.cell_length, 0)) + Content.styled(" │ ", "$text-muted") + right
    )


def _bar_line(label: str, fraction: float | None, width: int, value: str) -> Content:
    value = f"{value:>{_VALUE_WIDTH.get(label, 0)}}"
    bar_width = max(width - _LABEL_WIDTH - len(value) - 1, 3)
    filled, empty = bar(fraction, bar_width)
    style = (
        "$success" if fraction is None or fraction < 0.8 else ("$warning" if fraction < 0.95 else "$error")
    )
    return Content.assemble(
        (f"{label:<{_LABEL_WIDTH}}", "$text-muted"), (filled, style), (empty, "$text-muted 40%"), f" {value}"
    )


def _spark_line(label: str, now: float | None, series: tuple[float, ...], width: int) -> Content:
    head = f"{fmt.percent(now):>4} "
    spark_width = max(width - _LABEL_WIDTH - len(head), 3)
    return Content.assemble(
        (f"{label:<{_LABEL_WIDTH}}", "$text-muted"), head, (spark(series, spark_width), "$accent")
    )


def _process_order(proc: GpuProcess, info: Mapping[int, ProcessInfo], sort: str) -> tuple[float, int]:
    if sort == "cpu":
        local = info.get(proc.pid)
        return (-(local.cpu_percent or 0.0) if local else 0.0, proc.pid)
    if sort == "pid":
        return (0.0, proc.pid)
    return (-(proc.used_memory_bytes or 0), proc.pid)


def _process_lines(
    gpu_procs: tuple[GpuProcess, ...], info: Mapping[int, ProcessInfo], width: int, sort: str = "memory"
) -> list[Content]:
    if not gpu_procs:
        return [Content.styled("no processes", "$text-muted")]
    # The sorted column carries the arrow (o on the Devices tab cycles it).
    pid, cpu, mem = (
        ("▲" if key == "pid" else "▼") if key == sort else "" for key in ("pid", "cpu", "memory")
    )
    head = f"{'PID' + pid:>7} {'USER':<10} {'CPU%' + cpu:>5} {'GPU MEM' + mem:>9}  COMMAND"
    lines = [Content.styled(head, "$text-muted")]
    ordered = sorted(gpu_procs, key=lambda p: _process_order(p, info, sort))
    for proc in ordered[:MAX_PROCESS_ROWS]:
        local = info.get(proc.pid)
        user = (local.user if local else None) or fmt.UNKNOWN
        cpu = fmt.UNKNOWN if local is None or local.cpu_percent is None else f"{local.cpu_percent:.0f}"
        command = (local.command if local else None) or proc.name or fmt.UNKNOWN
        memory = (
            fmt.human_bytes(proc.used_memory_bytes) if proc.used_memory_bytes is not None else fmt.UNKNOWN
        )
        row = f"{proc.pid:>7} {user[:10]:<10} {cpu:>5} {memory:>9}  {command}"
        lines.append(Content(row[: max(width, 20)]))
    if len(ordered) > MAX_PROCESS_ROWS:
        lines.append(Content.styled(f"… {len(ordered) - MAX_PROCESS_ROWS} more", "$text-muted"))
    return lines
