"""``save``'s one-line summary names each GPU's vendor once ("2× NVIDIA H100 80GB HBM3")."""

from __future__ import annotations

import msgspec

from envsnap.render.summary import one_line_summary
from envsnap.snapshot.model import AmdDevice, AmdInfo
from tests.factories import make_snapshot


def test_the_vendor_is_named_once() -> None:
    snapshot = make_snapshot()
    acc = snapshot.accelerators
    assert acc is not None
    assert acc.nvidia is not None
    assert acc.nvidia.devices
    (device,) = acc.nvidia.devices
    second = msgspec.structs.replace(device, index=1, pci_bus_id="00000000:00:0A.0")
    nvidia = msgspec.structs.replace(acc.nvidia, devices=(device, second))
    amd = AmdInfo(status="ok", devices=(AmdDevice(index=0, name="AMD Instinct MI210"),))
    snapshot = msgspec.structs.replace(
        snapshot, accelerators=msgspec.structs.replace(acc, nvidia=nvidia, amd=amd)
    )
    line = one_line_summary(snapshot)
    assert "2× NVIDIA H100 80GB HBM3" in line
    assert "NVIDIA NVIDIA" not in line
    assert "1× AMD Instinct MI210" in line
