"""25.9. The framework cache is keyed on the host and its devices, and kept per host.

Its key covered the interpreter, the installed distributions, the environment and the driver, but
not which machine, which boot, or which GPUs: after the GPUs fell off the bus envsnap still said
"CUDA available, 8 x H100", and on a cluster with a shared home folder every node of ``fleet
collect`` got the first node's view of torch. The host is read under ``ProbeContext.root`` (a
fixture tree shaped like /etc, /proc and /sys of a real host), so each fact can be changed alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.probes.base import ProbeContext
from envsnap.probes.frameworks import cache as framework_cache

H100 = ("0x030200", "0x10de", "0x2330")  # class 3D controller, NVIDIA, H100 SXM5 80GB (pci.ids)


def _host(
    root: Path, *, machine: str = "4c4c4544003710528036b4c04f4d3332", boot: str = "b1", gpus: int = 8
) -> Path:
    (root / "etc").mkdir(parents=True, exist_ok=True)
    (root / "etc" / "machine-id").write_text(machine + "\n")
    random = root / "proc" / "sys" / "kernel" / "random"
    random.mkdir(parents=True, exist_ok=True)
    (random / "boot_id").write_text(f"{boot}0b3a6e-8f3c-4d5e-9a1b-2c3d4e5f6a7b\n")
    devices = root / "sys" / "bus" / "pci" / "devices"
    devices.mkdir(parents=True, exist_ok=True)
    for old in devices.iterdir():
        for item in old.iterdir():
            item.unlink()
        old.rmdir()
    for i in range(gpus):
        device = devices / f"0000:{0x18 + i:02x}:00.0"
        device.mkdir()
        for name, value in zip(("class", "vendor", "device"), H100, strict=True):
            (device / name).write_text(value + "\n")
    bridge = devices / "0000:00:00.0"
    bridge.mkdir(exist_ok=True)
    for name, value in zip(("class", "vendor", "device"), ("0x060000", "0x8086", "0x09a2"), strict=True):
        (bridge / name).write_text(value + "\n")
    (root / "dev").mkdir(exist_ok=True)
    return root


def _key(root: Path) -> str | None:
    ctx = ProbeContext(root=root)
    return framework_cache.cache_key(ctx, dict(ctx.environ))


def test_a_reboot_changes_the_key(tmp_path: Path) -> None:
    root = _host(tmp_path / "host")
    before = _key(root)
    _host(root, boot="c2")
    assert before is not None
    assert _key(root) != before


def test_gpus_that_left_the_bus_change_the_key(tmp_path: Path) -> None:
    root = _host(tmp_path / "host")
    before = _key(root)
    _host(root, gpus=0)
    assert _key(root) != before
    _host(root, gpus=8)
    assert _key(root) == before  # the same host, boot and devices: the same key


def test_another_host_gets_another_key_and_another_file(tmp_path: Path) -> None:
    first = _host(tmp_path / "node1")
    second = _host(tmp_path / "node2", machine="9e107d9d372bb6826bd81d3542a419d6")
    assert _key(first) != _key(second)
    env = {"XDG_CACHE_HOME": str(tmp_path / "shared-home" / ".cache")}
    paths = {framework_cache.default_path(env, ProbeContext(root=root)) for root in (first, second)}
    assert len(paths) == 2
    assert all(path.parent == tmp_path / "shared-home" / ".cache" / "envsnap" for path in paths)


def test_a_cached_answer_of_one_host_is_not_read_on_another(tmp_path: Path) -> None:
    first = _host(tmp_path / "node1")
    second = _host(tmp_path / "node2", machine="9e107d9d372bb6826bd81d3542a419d6")
    env = {"XDG_CACHE_HOME": str(tmp_path / "shared-home" / ".cache")}
    ctx1, ctx2 = ProbeContext(root=first), ProbeContext(root=second)
    key1 = framework_cache.cache_key(ctx1, dict(ctx1.environ))
    assert key1 is not None
    answers = {"torch": {"cuda_available": True, "device_count": 8}}
    framework_cache.store(key1, answers, ["torch"], framework_cache.default_path(env, ctx1))
    assert framework_cache.load(key1, framework_cache.default_path(env, ctx1)) == answers
    assert framework_cache.load(key1, framework_cache.default_path(env, ctx2)) is None


@pytest.mark.parametrize("missing", ["etc/machine-id", "proc/sys/kernel/random/boot_id"])
def test_a_host_without_an_identity_file_still_gets_a_key(tmp_path: Path, missing: str) -> None:
    root = _host(tmp_path / "host")
    (root / missing).unlink()
    assert _key(root) is not None
