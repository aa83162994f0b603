"""The Intel GPU probe: ``accelerators.intel`` from the kernel's DRM cards (``i915`` or ``xe``).

Only what sysfs states for sure: PCI device id, address and the bound driver (``driver`` symlink,
else ``uevent``). What torch.xpu sees is the frameworks probe's business. Integrated and discrete
GPUs both show up here; which ones Level Zero exposes is decided by the runtime, not the kernel.

Names come from a device-id table only where a source names the part; otherwise the name is left
absent rather than guessed (xpu-smi itself prints ``Intel(R) Graphics [0x020a]`` for unnamed ids).
"""

from __future__ import annotations

from envsnap.probes.base import ProbeContext
from envsnap.probes.drm import list_cards
from envsnap.snapshot.model import IntelDevice, IntelInfo

INTEL_VENDOR_ID = "0x8086"

DEVICE_NAMES = {
    # xpu-smi for Windows user guide (intel/xpumanager doc/xpum_win_user_guide.md): "pci_device_id": "56c0".
    "0x56c0": "Intel(R) Data Center GPU Flex Series 170",
}
"""Marketing names by PCI device id, each row with its source."""


def probe(ctx: ProbeContext) -> IntelInfo:
    """Intel GPUs bound to a kernel driver.

    Command line equivalent: ``xpu-smi discovery`` (or ``lspci -d 8086::0300 -k``).

    Args:
        ctx: what to probe; ``ctx.root`` is where ``/sys`` is read.

    Returns:
        The Intel section: ok with devices, or skipped when there is no Intel GPU.
    """
    cards = list_cards(ctx, INTEL_VENDOR_ID)
    if not cards:
        return IntelInfo(status="skipped", reason="no Intel GPU: no Intel card under /sys/class/drm")
    devices = tuple(
        IntelDevice(
            index=index,
            name=DEVICE_NAMES.get(card.device_id or ""),
            pci_bus_id=card.pci_bus_id,
            device_id=card.device_id,
            driver=card.driver,
        )
        for index, card in enumerate(cards)
    )
    return IntelInfo(status="ok", devices=devices)
