"""GPUs as the Linux kernel lists them under ``/sys/class/drm``: the vendor-neutral part of sysfs probing.

The AMD and Intel probes both start here: every ``cardN`` directory whose ``device`` is a PCI
function, with its vendor and device id, PCI address and bound kernel driver. Everything is read
through ``ProbeContext.path`` so tests point ``ctx.root`` at a fixture tree. Connector entries
(``card0-DP-1``) and render nodes (``renderD128``) are not cards and are skipped.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from envsnap.probes.base import ProbeContext, read_text

_CARD_NAME = re.compile(r"card(\d+)")
_BUS_ID = re.compile(r"(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])")


@dataclass(frozen=True)
class DrmCard:
    """One ``/sys/class/drm/cardN`` backed by a PCI device."""

    index: int
    """N of ``cardN`` (the DRM minor), which is not the ROCm or oneAPI device index."""
    device_dir: Path
    """``.../cardN/device`` under the probe root."""
    vendor_id: str | None
    """``0x1002`` (AMD), ``0x8086`` (Intel), ``0x10de`` (NVIDIA)."""
    device_id: str | None
    """PCI device id, lower-case hex with ``0x``, e.g. ``0x738c``."""
    pci_bus_id: str | None
    """Normalized ``0000:83:00.0`` form, see ``normalize_pci_bus_id``."""
    driver: str | None
    """Bound kernel driver: ``amdgpu``, ``i915``, ``xe``, ``nvidia``..."""


def normalize_pci_bus_id(text: str | None) -> str | None:
    """Bring a PCI address to the snapshot's one form, ``DDDD:BB:DD.F`` with upper-case hex.

    NVML says ``00000000:3B:00.0``, sysfs and amdsmi ``0000:3b:00.0``, rocm-smi ``0000:3B:00.0``;
    one form lets diff and the device sort line them up.

    Args:
        text: the address as a tool or the kernel wrote it.

    Returns:
        The normalized address, or None when ``text`` holds no PCI address.
    """
    if not text:
        return None
    match = _BUS_ID.search(text.strip())
    if match is None:
        return None
    domain, bus, dev, fn = match.groups()
    domain_value = int(domain, 16) if domain else 0
    return f"{domain_value:04X}:{int(bus, 16):02X}:{int(dev, 16):02X}.{fn}"


def read_value(path: Path) -> str | None:
    """A one-line sysfs attribute, stripped; None when absent, unreadable or empty."""
    text = read_text(path, limit=4096)
    if text is None:
        return None
    text = text.strip()
    return text or None


def read_int(path: Path) -> int | None:
    """A sysfs attribute holding one integer (decimal or ``0x`` hex); None otherwise."""
    text = read_value(path)
    if text is None:
        return None
    try:
        return int(text, 0)
    except ValueError:
        return None


def _hex_id(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        return f"0x{int(text, 16):04x}"
    except ValueError:
        return None


def _uevent(device_dir: Path) -> dict[str, str]:
    text = read_text(device_dir / "uevent", limit=16384) or ""
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs}


def _link_name(path: Path) -> str | None:
    """Last component of a symlink's target (``device`` → ``0000:83:00.0``, ``driver`` → ``amdgpu``)."""
    try:
        return os.path.basename(os.readlink(path))
    except OSError:
        return None


def read_card(index: int, device_dir: Path) -> DrmCard:
    """Read the identity of one card from its ``device`` directory.

    The PCI address comes from the ``device`` symlink's target on a live system and from
    ``uevent``'s ``PCI_SLOT_NAME`` otherwise; the driver from the ``driver`` symlink, else
    ``uevent``'s ``DRIVER``.
    """
    uevent = _uevent(device_dir)
    bus_id = normalize_pci_bus_id(_link_name(device_dir)) or normalize_pci_bus_id(uevent.get("PCI_SLOT_NAME"))
    pci_id = uevent.get("PCI_ID", "")
    vendor_text, _, device_text = pci_id.partition(":")
    vendor = _hex_id(read_value(device_dir / "vendor")) or _hex_id(vendor_text or None)
    device = _hex_id(read_value(device_dir / "device")) or _hex_id(device_text or None)
    driver = _link_name(device_dir / "driver") or uevent.get("DRIVER") or None
    return DrmCard(
        index=index,
        device_dir=device_dir,
        vendor_id=vendor,
        device_id=device,
        pci_bus_id=bus_id,
        driver=driver,
    )


def list_cards(ctx: ProbeContext, vendor_id: str | None = None) -> tuple[DrmCard, ...]:
    """Every PCI-backed DRM card under the probe root, by card number.

    Args:
        ctx: the probe context (its ``root`` is where ``/sys`` is read).
        vendor_id: keep only cards of this PCI vendor, e.g. ``"0x1002"``.

    Returns:
        The cards, possibly none (no ``/sys/class/drm`` at all is simply no cards).
    """
    drm = ctx.path("/sys/class/drm")
    try:
        names = os.listdir(drm)
    except OSError:
        return ()
    cards: list[DrmCard] = []
    for name in names:
        match = _CARD_NAME.fullmatch(name)
        device_dir = drm / name / "device"
        if match is None or not device_dir.is_dir():
            continue
        card = read_card(int(match.group(1)), device_dir)
        if vendor_id is None or card.vendor_id == vendor_id:
            cards.append(card)
    return tuple(sorted(cards, key=lambda c: c.index))
