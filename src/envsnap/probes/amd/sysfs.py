"""AMD GPUs read straight from the amdgpu kernel driver's sysfs files: the fallback when amdsmi is absent.

Works on any host with the amdgpu driver, ROCm installed or not (rocm-smi reads the same files):
- ``/sys/class/drm/cardN/device/``: ``vendor`` 0x1002, ``device``, ``mem_info_vram_total``/``_used``
  (bytes), ``gpu_busy_percent``, ``mem_busy_percent``, ``vbios_version``, ``current_link_speed``/
  ``_width``, and ``hwmon/hwmon*/`` (``tempN_input`` in m°C with ``tempN_label`` edge/junction/mem,
  ``power1_average`` or ``power1_input`` and ``power1_cap`` in µW);
- ``/sys/class/kfd/kfd/topology/nodes/*/properties``: ``gfx_target_version``, compute units
  (``simd_count / simd_per_cu``), matched to the card by PCI location (``domain``, ``location_id``)
  or render minor; ``/sys/class/kfd/kfd/proc/<pid>/vram_<gpu_id>``: per-process VRAM;
- ``/sys/module/amdgpu/version``: the DKMS driver version (an in-tree driver has none: the kernel
  release stands for it, as rocm-smi does).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from envsnap.probes.amd.gfx import gfx_from_kfd_version
from envsnap.probes.base import ProbeContext, read_text
from envsnap.probes.drm import DrmCard, list_cards, read_int, read_value
from envsnap.snapshot.model import AmdDevice, DeviceSample, GpuProcess

AMD_VENDOR_ID = "0x1002"

_RENDER = re.compile(r"renderD(\d+)")
_LINK_SPEED = re.compile(r"([\d.]+)\s*GT/s")
# PCIe generation by per-lane transfer rate (PCI-SIG): 2.5, 5, 8, 16, 32, 64 GT/s.
_GEN_BY_GTS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}


@dataclass(frozen=True)
class KfdNode:
    """A GPU node of the KFD (ROCm compute) topology."""

    gpu_id: int | None
    gfx_target: str | None
    compute_units: int | None
    domain: int | None
    location_id: int | None
    """PCI (bus << 8) | (device << 3) | function."""
    render_minor: int | None


@dataclass(frozen=True)
class AmdCard:
    """An AMD DRM card and, when ROCm's kernel side knows it, its KFD node."""

    index: int
    card: DrmCard
    node: KfdNode | None


def _properties(text: str) -> dict[str, int]:
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.strip().partition(" ")
        try:
            values[key] = int(value)
        except ValueError:
            continue
    return values


def kfd_nodes(ctx: ProbeContext) -> tuple[KfdNode, ...]:
    """GPU nodes of ``/sys/class/kfd/kfd/topology`` (CPU nodes, gfx_target_version 0, are left out)."""
    nodes_dir = ctx.path("/sys/class/kfd/kfd/topology/nodes")
    try:
        names = sorted(os.listdir(nodes_dir), key=lambda n: (len(n), n))
    except OSError:
        return ()
    nodes: list[KfdNode] = []
    for name in names:
        props = _properties(read_text(nodes_dir / name / "properties") or "")
        gfx = gfx_from_kfd_version(props.get("gfx_target_version", 0))
        if gfx is None:
            continue
        simds, per_cu = props.get("simd_count"), props.get("simd_per_cu")
        nodes.append(
            KfdNode(
                gpu_id=read_int(nodes_dir / name / "gpu_id"),
                gfx_target=gfx,
                compute_units=simds // per_cu if simds and per_cu else None,
                domain=props.get("domain"),
                location_id=props.get("location_id"),
                render_minor=props.get("drm_render_minor"),
            )
        )
    return tuple(nodes)


def _location(bus_id: str | None) -> tuple[int, int] | None:
    if bus_id is None:
        return None
    domain, bus, rest = bus_id.split(":")
    device, function = rest.split(".")
    return int(domain, 16), (int(bus, 16) << 8) | (int(device, 16) << 3) | int(function)


def _render_minor(card: DrmCard) -> int | None:
    try:
        names = os.listdir(card.device_dir / "drm")
    except OSError:
        return None
    minors = [int(m.group(1)) for m in map(_RENDER.fullmatch, names) if m]
    return minors[0] if minors else None


def _node_for(card: DrmCard, nodes: tuple[KfdNode, ...]) -> KfdNode | None:
    location = _location(card.pci_bus_id)
    for node in nodes:
        if location is not None and (node.domain or 0, node.location_id) == location:
            return node
    minor = _render_minor(card)
    return next((n for n in nodes if minor is not None and n.render_minor == minor), None)


def amd_cards(ctx: ProbeContext) -> tuple[AmdCard, ...]:
    """Every AMD card, numbered in DRM card order, each matched to its KFD node."""
    nodes = kfd_nodes(ctx)
    cards = list_cards(ctx, AMD_VENDOR_ID)
    return tuple(AmdCard(index=i, card=card, node=_node_for(card, nodes)) for i, card in enumerate(cards))


def driver_version(ctx: ProbeContext) -> str | None:
    """amdgpu's version: the DKMS module's, else the kernel release when amdgpu is built in-tree."""
    version = read_value(ctx.path("/sys/module/amdgpu/version"))
    if version is not None:
        return version
    if ctx.path("/sys/module/amdgpu").is_dir():
        return read_value(ctx.path("/proc/sys/kernel/osrelease"))
    return None


def _serial(device_dir: Path) -> str | None:
    serial = read_value(device_dir / "serial_number")
    return None if serial in (None, "0", "N/A") else serial


def read_device(amd: AmdCard) -> AmdDevice:
    """Static facts of one card."""
    device_dir = amd.card.device_dir
    node = amd.node
    return AmdDevice(
        index=amd.index,
        name=read_value(device_dir / "product_name"),
        gfx_target=node.gfx_target if node else None,
        pci_bus_id=amd.card.pci_bus_id,
        device_id=amd.card.device_id,
        serial=_serial(device_dir),
        memory_total_bytes=read_int(device_dir / "mem_info_vram_total"),
        compute_units=node.compute_units if node else None,
        vbios_version=read_value(device_dir / "vbios_version"),
    )


def _hwmon_dirs(device_dir: Path) -> list[Path]:
    try:
        return [device_dir / "hwmon" / name for name in sorted(os.listdir(device_dir / "hwmon"))]
    except OSError:
        return []


def _temperature_c(hwmon: Path) -> float | None:
    """Edge temperature, else junction (hotspot): MI300 parts have no edge sensor."""
    by_label: dict[str, int] = {}
    for n in range(1, 10):
        value = read_int(hwmon / f"temp{n}_input")
        if value is not None:
            by_label[read_value(hwmon / f"temp{n}_label") or f"temp{n}"] = value
    for label in ("edge", "junction", "temp1"):
        if label in by_label:
            return by_label[label] / 1000.0
    return None


def _watts(microwatts: int | None) -> float | None:
    return None if microwatts is None else microwatts / 1_000_000


def _link_gen(device_dir: Path) -> int | None:
    match = _LINK_SPEED.search(read_value(device_dir / "current_link_speed") or "")
    return _GEN_BY_GTS.get(float(match.group(1))) if match else None


def _processes(ctx: ProbeContext, gpu_id: int | None) -> tuple[GpuProcess, ...] | None:
    """Processes holding VRAM on the node ``gpu_id`` (KFD's per-process accounting); None if unknown."""
    proc_dir = ctx.path("/sys/class/kfd/kfd/proc")
    if gpu_id is None or not proc_dir.is_dir():
        return None
    found: list[GpuProcess] = []
    for pid_name in os.listdir(proc_dir):
        used = read_int(proc_dir / pid_name / f"vram_{gpu_id}")
        if used is None or not pid_name.isdigit():
            continue
        comm = read_value(ctx.path(f"/proc/{pid_name}/comm"))
        found.append(GpuProcess(pid=int(pid_name), used_memory_bytes=used, kind="compute", name=comm))
    return tuple(sorted(found, key=lambda p: p.pid))


def read_sample(ctx: ProbeContext, amd: AmdCard) -> DeviceSample:
    """Live metrics of one card (the sysfs counterpart of ``amd-smi metric``)."""
    device_dir = amd.card.device_dir
    total = read_int(device_dir / "mem_info_vram_total")
    used = read_int(device_dir / "mem_info_vram_used")
    busy = read_int(device_dir / "gpu_busy_percent")
    mem_busy = read_int(device_dir / "mem_busy_percent")
    temperature = power = power_cap = None
    for hwmon in _hwmon_dirs(device_dir):
        # Older kernels report the averaged package power, newer (RDNA3+) the instantaneous one.
        draw = read_int(hwmon / "power1_average")
        draw = read_int(hwmon / "power1_input") if draw is None else draw
        temperature = _temperature_c(hwmon) if temperature is None else temperature
        power = _watts(draw) if power is None else power
        power_cap = _watts(read_int(hwmon / "power1_cap")) if power_cap is None else power_cap
    return DeviceSample(
        vendor="amd",
        index=amd.index,
        name=read_value(device_dir / "product_name"),
        pci_bus_id=amd.card.pci_bus_id,
        memory_used_bytes=used,
        memory_free_bytes=total - used if total is not None and used is not None else None,
        memory_total_bytes=total,
        gpu_util_percent=None if busy is None else float(busy),
        memory_util_percent=None if mem_busy is None else float(mem_busy),
        temperature_c=temperature,
        power_draw_watts=power,
        power_limit_watts=power_cap,
        pcie_link_gen=_link_gen(device_dir),
        pcie_link_width=read_int(device_dir / "current_link_width"),
        processes=_processes(ctx, amd.node.gpu_id if amd.node else None),
    )


class SysfsTelemetry:
    """Live AMD telemetry from sysfs; the cards are enumerated once, when the source is opened."""

    name = "sysfs"

    def __init__(self, ctx: ProbeContext, cards: tuple[AmdCard, ...]) -> None:
        self._ctx = ctx
        self._cards = cards

    def driver_version(self) -> str | None:
        """amdgpu's version, for ``envsnap gpus``' header line."""
        return driver_version(self._ctx)

    def read(self) -> tuple[DeviceSample, ...]:
        """One sample of every AMD card."""
        return tuple(read_sample(self._ctx, card) for card in self._cards)

    def close(self) -> None:
        """Nothing to release: sysfs files are opened per read."""
