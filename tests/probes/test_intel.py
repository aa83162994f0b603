"""The Intel GPU probe against a sysfs tree with one ``xe`` and one ``i915`` card.

Device ids and PCI addresses are those of Intel's xpu-smi user guides (tests/data/SOURCES.md):
0x56c0 (Data Center GPU Flex 170) and 0x020a (a pre-production Data Center GPU Max that xpu-smi
names only "Intel(R) Graphics [0x020a]").
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from envsnap.probes import intel
from envsnap.probes.base import ProbeContext
from envsnap.snapshot.model import IntelDevice
from tests.conftest import DATA

INTEL_ROOT = DATA / "sysfs" / "intel-xe-i915"


def test_xe_and_i915_cards() -> None:
    info = intel.probe(ProbeContext(root=INTEL_ROOT, environ={}))
    assert (info.status, info.reason) == ("ok", None)
    assert info.devices == (
        IntelDevice(
            index=0,
            name="Intel(R) Data Center GPU Flex Series 170",
            pci_bus_id="0000:3A:00.0",
            device_id="0x56c0",
            driver="xe",
        ),
        IntelDevice(index=1, name=None, pci_bus_id="0000:4D:00.0", device_id="0x020a", driver="i915"),
    )


def test_driver_and_address_from_the_live_symlinks(tmp_path: Path) -> None:
    """On a live system ``device`` and ``driver`` are symlinks; their targets win over uevent."""
    root = tmp_path / "root"
    shutil.copytree(INTEL_ROOT, root)
    card = root / "sys/class/drm/card1"
    pci = root / "sys/devices/pci0000:4a/0000:4a:02.0/0000:4b:00.0/0000:4c:00.0/0000:4d:00.0"
    pci.parent.mkdir(parents=True)
    shutil.move(str(card / "device"), pci)
    (pci / "uevent").write_text("DRIVER=i915\n")  # no PCI_SLOT_NAME: the address must come from the link
    os.symlink(
        "../../../devices/pci0000:4a/0000:4a:02.0/0000:4b:00.0/0000:4c:00.0/0000:4d:00.0", card / "device"
    )
    (root / "sys/bus/pci/drivers/xe").mkdir(parents=True)
    os.symlink("../../../../../../../bus/pci/drivers/xe", pci / "driver")  # rebound from i915 to xe
    info = intel.probe(ProbeContext(root=root, environ={}))
    assert info.devices is not None
    assert (info.devices[1].pci_bus_id, info.devices[1].driver) == ("0000:4D:00.0", "xe")


def test_amd_cards_are_not_intel() -> None:
    info = intel.probe(ProbeContext(root=DATA / "sysfs" / "mi100x4", environ={}))
    assert (info.status, info.reason) == ("skipped", "no Intel GPU: no Intel card under /sys/class/drm")


def test_this_machine_has_no_intel_gpu() -> None:
    assert intel.probe(ProbeContext()).status == "skipped"
