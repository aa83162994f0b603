"""The Devices tab: one card per GPU, fed by telemetry samples and the snapshot's static facts.

Samples carry the live numbers; the snapshot adds what the sampler does not repeat every second
(compute capability or gfx target, maximum PCIe link, MIG layout). Cards are created when the
set of devices changes and only updated otherwise, which keeps a 1 s refresh cheap.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from envsnap.tui.panes.deferred import DeferredPane
from envsnap.tui.telemetry import DeviceHistory, HostLoad, ProcessInfo, device_key

if TYPE_CHECKING:
    from envsnap.snapshot.model import DeviceSample, NvidiaDevice, Sample, Snapshot
    from envsnap.tui.widgets.device_card import DeviceView


@dataclass(frozen=True)
class TelemetryState:
    """The latest telemetry the Devices tab shows."""

    sample: Sample
    history: dict[str, DeviceHistory] = field(default_factory=dict)
    processes: dict[int, ProcessInfo] = field(default_factory=dict)
    recorded: bool = False
    """True for telemetry stored in an opened snapshot file (not this machine, not live)."""
    host: HostLoad | None = None
    """This host's CPU and memory at the sample (live only)."""


PROCESS_SORTS = ("memory", "cpu", "pid")
"""What ``o`` cycles the device cards' process rows through: GPU memory (largest first), CPU %, PID."""


def host_line(host: HostLoad) -> Content:
    """``host  CPU 12 % of 16 · RAM 23.1/125.7 GiB · load 1.20``."""
    from envsnap.tui import format as fmt  # its byte formatting loads the model: not on the start path

    cpu = "–" if host.cpu_percent is None else f"{host.cpu_percent:.0f} %"
    of = f" of {host.cpus}" if host.cpus else ""
    parts = [f"CPU {cpu}{of}", f"RAM {fmt.gib_pair(host.memory_used_bytes, host.memory_total_bytes)}"]
    if host.load_1m is not None:
        parts.append(f"load {host.load_1m:.2f}")
    return Content.assemble(("host  ", "bold"), " · ".join(parts))


class DevicesPane(DeferredPane):
    """Device cards and a status line (live/paused/recorded, backend errors, this host's load)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("o", "cycle_process_sort", "Sort processes")]
    process_sort: reactive[str] = reactive("memory", repaint=False)

    snapshot: reactive[Snapshot | None] = reactive(None)
    # repaint=False: the watchers update only the widgets whose values changed (the status line,
    # each card), so a sample never repaints the whole pane.
    telemetry: reactive[TelemetryState | None] = reactive(None, repaint=False)
    telemetry_status: reactive[str] = reactive("waiting for the first sample…", repaint=False)
    """One line: "live · every 1 s", "paused", "recorded at ...", or the backend error."""
    telemetry_error: reactive[str | None] = reactive(None, repaint=False)

    def __init__(self) -> None:
        super().__init__("Devices", id="devices")
        self._status_lines = 0
        self._stale = False

    def on_show(self) -> None:
        # Samples that arrived while another tab was on show were not drawn (see _visible).
        if self._stale:
            self.show()

    def _visible(self) -> bool:
        """Whether drawing now is useful; a hidden tab is only marked stale and drawn when shown."""
        if not self.built:
            return False
        if not self.display:
            self._stale = True
            return False
        return True

    def content(self) -> Iterable[Widget]:
        yield Static(id="devices-status")
        yield VerticalScroll(id="device-cards")

    def show(self) -> None:
        self._stale = False
        self._show_status()
        self._show_cards()

    def watch_telemetry_status(self) -> None:
        self._show_status()

    def watch_telemetry_error(self) -> None:
        self._show_status()

    def watch_telemetry(self) -> None:
        self._show_cards()

    def watch_snapshot(self) -> None:
        self._show_cards()

    def watch_process_sort(self) -> None:
        self._show_cards()

    def action_cycle_process_sort(self) -> None:
        """Sort each card's processes by the next key: GPU memory, CPU %, PID."""
        self.process_sort = PROCESS_SORTS[(PROCESS_SORTS.index(self.process_sort) + 1) % len(PROCESS_SORTS)]

    def _show_status(self) -> None:
        if not self._visible():
            return
        status = Content.styled(self.telemetry_status, "$text-muted")
        if self.telemetry_error:
            status += Content.assemble(("  ✖ ", "$error"), (self.telemetry_error, "$error"))
        host = self.telemetry.host if self.telemetry is not None else None
        if host is not None:
            status = Content("\n").join([status, host_line(host)])
        line = self.query_one("#devices-status", Static)
        # The status changes every sample; re-lay out only when it needs another number of lines.
        width = max(line.content_size.width, 1)
        lines = sum(-(-max(part.cell_length, 1) // width) for part in status.split("\n"))
        line.update(status, layout=lines != self._status_lines)
        self._status_lines = lines

    def _show_cards(self) -> None:
        if not self._visible():
            return
        from envsnap.tui.widgets.device_card import DeviceCard  # built after the first frame

        holder = self.query_one("#device-cards", VerticalScroll)
        views = device_views(self.snapshot, self.telemetry, self.process_sort)
        if not views:
            empty = holder.query_children("#devices-empty")
            if empty:
                empty.first(Static).update(_empty_text(self.snapshot, self.telemetry))
            else:
                holder.remove_children()
                holder.mount(Static(_empty_text(self.snapshot, self.telemetry), id="devices-empty"))
            return
        holder.query_children("#devices-empty").remove()
        # Update cards in place; mount only new devices and drop vanished ones, so ids never collide.
        existing = {card.id: card for card in holder.query_children(DeviceCard)}
        previous: DeviceCard | None = None
        for key, view in views.items():
            card = existing.pop(f"card-{key}", None)
            if card is None:
                card = DeviceCard(view, id=f"card-{key}")
                if previous is not None:
                    holder.mount(card, after=previous)
                elif holder.children:
                    holder.mount(card, before=0)
                else:
                    holder.mount(card)
            else:
                card.view = view
            previous = card
        for stale in existing.values():
            stale.remove()


def _empty_text(snapshot: Snapshot | None, telemetry: TelemetryState | None) -> Content:
    if telemetry is None:
        return Content.styled("Waiting for the first telemetry sample…", "$text-muted")
    reasons = []
    acc = snapshot.accelerators if snapshot else None
    for label, info in (("NVIDIA", acc.nvidia if acc else None), ("AMD", acc.amd if acc else None)):
        if info is not None and info.reason:
            reasons.append(f"{label}: {info.reason}")
    text = "No GPU telemetry on this host: no NVIDIA (NVML) or AMD backend could be opened."
    return Content.styled("\n".join([text, *reasons]), "$text-muted")


def device_views(
    snapshot: Snapshot | None, telemetry: TelemetryState | None, process_sort: str = "memory"
) -> dict[str, DeviceView]:
    """A card view per sampled device, joined with the snapshot's static facts."""
    from envsnap.tui.widgets.device_card import DeviceView

    if telemetry is None:
        return {}
    views: dict[str, DeviceView] = {}
    for device in telemetry.sample.devices:
        key = device_key(device)
        facts = _static_facts(snapshot, device)
        views[key] = DeviceView(
            sample=device,
            history=telemetry.history.get(key, DeviceHistory()),
            processes=telemetry.processes,
            process_sort=process_sort,
            **facts,
        )
    return views


def _same_bus(a: str | None, b: str | None) -> bool:
    # NVML says 00000000:3B:00.0, snapshots say 0000:3B:00.0: compare bus:device.function only.
    return a is not None and b is not None and a.split(":", 1)[-1].lower() == b.split(":", 1)[-1].lower()


def _static_facts(snapshot: Snapshot | None, device: DeviceSample) -> dict[str, Any]:
    acc = snapshot.accelerators if snapshot else None
    if acc is None:
        return {}
    if device.vendor == "nvidia" and acc.nvidia is not None:
        for nv in acc.nvidia.devices or ():
            if (device.uuid and nv.uuid == device.uuid) or _same_bus(nv.pci_bus_id, device.pci_bus_id):
                return _nvidia_facts(nv)
    if device.vendor == "amd" and acc.amd is not None:
        for amd in acc.amd.devices or ():
            if (device.uuid and amd.uuid == device.uuid) or _same_bus(amd.pci_bus_id, device.pci_bus_id):
                return {"arch": amd.gfx_target}
    return {}


def _nvidia_facts(nv: NvidiaDevice) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    if nv.compute_capability:
        facts["arch"] = f"sm_{nv.compute_capability.replace('.', '')}"
    if nv.pcie_link_gen_max is not None or nv.pcie_link_width_max is not None:
        facts["pcie_max"] = f"{nv.pcie_link_gen_max or '?'}×{nv.pcie_link_width_max or '?'}"
    if nv.mig_enabled:
        profiles: dict[str, int] = {}
        for mig in nv.mig_instances or ():
            profiles[mig.profile or "?"] = profiles.get(mig.profile or "?", 0) + 1
        layout = ", ".join(f"{name} ×{count}" for name, count in sorted(profiles.items()))
        facts["mig"] = f"MIG on · {len(nv.mig_instances or ())} instances" + (f": {layout}" if layout else "")
    return facts
