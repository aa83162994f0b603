"""The AMD probe and telemetry sources, against real recorded AMD hosts.

Backends under test: a fake ``amdsmi`` module serving the amd-smi/rocm-smi captures
(tests/fakes/fake_amdsmi.py) and sysfs trees written from the rocm-smi captures
(tests/data/sysfs/mi100x4, rx6700xt). The expected values come from the captures themselves,
parsed independently by tests/fakes/amd_fixtures.py.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
from pathlib import Path

import pytest

from envsnap.live.sampler import Sampler
from envsnap.probes.amd import probe as amd
from envsnap.probes.amd.gfx import gfx_from_kfd_version, normalize_gfx_name
from envsnap.probes.amd.smi import AmdSmiSession, driver_version_text
from envsnap.probes.base import ProbeContext
from envsnap.snapshot.model import DeviceSample, GpuProcess
from tests.conftest import DATA
from tests.fakes import amd_fixtures as fx
from tests.fakes import fake_amdsmi

MI100X4_ROOT = DATA / "sysfs" / "mi100x4"
RX6700XT_ROOT = DATA / "sysfs" / "rx6700xt"

# Fields a sysfs or amdsmi sample shares with a rocm-smi capture.
SAMPLE_FIELDS = (
    "index",
    "pci_bus_id",
    "memory_used_bytes",
    "memory_free_bytes",
    "memory_total_bytes",
    "gpu_util_percent",
    "memory_util_percent",
    "temperature_c",
    "power_draw_watts",
    "power_limit_watts",
)


def ctx_at(root: Path) -> ProbeContext:
    return ProbeContext(root=root, environ={})


def fields(sample: DeviceSample, names: tuple[str, ...] = SAMPLE_FIELDS) -> dict[str, object]:
    return {name: getattr(sample, name) for name in names}


def copy_tree(source: Path, tmp_path: Path) -> Path:
    root = tmp_path / "root"
    shutil.copytree(source, root)
    return root


# ---------------------------------------------------------------------------- gfx targets


@pytest.mark.parametrize(
    ("kfd_version", "target"),
    [
        # gfx_target_version values from Linux amdkfd/kfd_device.c; targets from compat-rules.md B3.1.
        (90000, "gfx900"),  # Vega 10 (MI25)
        (90006, "gfx906"),  # Vega 20 (MI50/MI60)
        (90008, "gfx908"),  # Arcturus (MI100)
        (90010, "gfx90a"),  # Aldebaran (MI210/MI250)
        (90402, "gfx942"),  # MI300X/MI300A (GC 9.4.3 rev ≥ 1, 9.4.4)
        (90400, "gfx940"),  # early MI300A silicon (GC 9.4.3 rev 0, APU), not gfx942
        (90500, "gfx950"),  # MI350/MI355
        (100102, "gfx1012"),  # Navi 14 (Radeon Pro W5500)
        (100300, "gfx1030"),
        (100301, "gfx1031"),
        (100302, "gfx1032"),
        (110000, "gfx1100"),
        (110001, "gfx1101"),
        (110002, "gfx1102"),
        (110003, "gfx1103"),
        (110500, "gfx1150"),
        (110501, "gfx1151"),
        (120000, "gfx1200"),
        (120001, "gfx1201"),
    ],
)
def test_gfx_target_from_kfd_version(kfd_version: int, target: str) -> None:
    assert gfx_from_kfd_version(kfd_version) == target


def test_cpu_nodes_have_no_gfx_target() -> None:
    assert gfx_from_kfd_version(0) is None


def test_rocm_smi_decimal_gfx_quirk_is_undone() -> None:
    """rocm-smi 6 printed gfx90a as "gfx9010" in the MI250 capture; the RX 6700 XT's gfx1031 is right."""
    mi250 = fx.rocm_smi_cards(fx.MI250_ROCM6)[0]["GFX Version"]
    rx = fx.rocm_smi_cards(fx.RX6700XT)[0]["GFX Version"]
    assert (mi250, normalize_gfx_name(mi250)) == ("gfx9010", "gfx90a")
    assert normalize_gfx_name(rx) == "gfx1031"
    assert normalize_gfx_name("gfx90a:sramecc+:xnack-") == "gfx90a"
    assert normalize_gfx_name("N/A") is None


def test_kernel_banner_driver_version_is_reduced_to_the_release() -> None:
    banner = fx.amd_smi_static(fx.MI210_STATIC)[0]["driver"]["version"]
    assert banner.startswith("Linuxversion6.14.0-24-generic(")
    assert driver_version_text(banner) == "6.14.0-24-generic"
    assert driver_version_text("6.3.6") == "6.3.6"
    assert driver_version_text("N/A") is None


# ---------------------------------------------------------------------------- sysfs backend


def test_mi100x4_from_sysfs_matches_the_rocm_smi_capture() -> None:
    reading = amd.probe(ctx_at(MI100X4_ROOT))
    info = reading.info
    assert (info.status, info.source, info.reason) == ("ok", "sysfs", None)
    assert info.driver_version == fx.rocm_smi_driver(fx.MI100X4) == "6.3.6"
    assert info.rocm_version == "6.0.2"
    assert info.devices is not None
    expected = fx.rocm_smi_devices(fx.MI100X4, gfx_target="gfx908")
    assert len(info.devices) == len(expected) == 4
    for device, want in zip(info.devices, expected, strict=True):
        assert (device.index, device.pci_bus_id, device.device_id) == (
            want.index,
            want.pci_bus_id,
            want.device_id,
        )
        assert (device.memory_total_bytes, device.vbios_version) == (
            want.memory_total_bytes,
            want.vbios_version,
        )
        assert device.gfx_target == "gfx908"
        assert device.compute_units == 120
    assert [fields(s) for s in reading.telemetry] == [fields(s) for s in fx.rocm_smi_samples(fx.MI100X4)]
    assert {(s.pcie_link_gen, s.pcie_link_width) for s in reading.telemetry} == {(4, 16)}  # "16.0GT/s x16"


def test_rx6700xt_from_sysfs_matches_the_rocm_smi_capture() -> None:
    reading = amd.probe(ctx_at(RX6700XT_ROOT))
    info = reading.info
    assert (info.status, info.source, info.rocm_version, info.driver_version) == (
        "ok",
        "sysfs",
        "6.1.2",
        "6.3.6",
    )
    assert info.devices is not None
    assert len(info.devices) == 1  # card0-DP-1 and renderD128 are not cards
    device = info.devices[0]
    card = fx.rocm_smi_cards(fx.RX6700XT)[0]
    assert device.gfx_target == normalize_gfx_name(card["GFX Version"]) == "gfx1031"
    assert (device.device_id, device.pci_bus_id) == ("0x73df", "0000:07:00.0")
    assert device.compute_units is None  # the tree's KFD node has no SIMD counts
    assert [fields(s) for s in reading.telemetry] == [fields(s) for s in fx.rocm_smi_samples(fx.RX6700XT)]


def _live_layout(root: Path) -> None:
    """Turn the RX 6700 XT tree into the live kernel layout: ``device`` and ``driver`` are symlinks."""
    card = root / "sys/class/drm/card0"
    pci = root / "sys/devices/pci0000:00/0000:00:01.1/0000:07:00.0"
    pci.parent.mkdir(parents=True)
    shutil.move(str(card / "device"), pci)
    (pci / "uevent").write_text("PCI_ID=1002:73DF\n")  # no DRIVER/PCI_SLOT_NAME: the links must do
    os.symlink("../../../devices/pci0000:00/0000:00:01.1/0000:07:00.0", card / "device")
    (root / "sys/bus/pci/drivers/amdgpu").mkdir(parents=True)
    os.symlink("../../../../bus/pci/drivers/amdgpu", pci / "driver")


def test_live_symlink_layout_and_kfd_processes(tmp_path: Path) -> None:
    """On a live system the PCI address is the ``device`` link's target; KFD lists per-process VRAM."""
    root = copy_tree(RX6700XT_ROOT, tmp_path)
    _live_layout(root)
    pid, name, vram = fx.rocm_smi_pids(fx.MI100X6)[0]  # the one process rocm-smi recorded
    (root / "sys/class/kfd/kfd/topology/nodes/1/gpu_id").write_text("55069\n")
    (root / f"sys/class/kfd/kfd/proc/{pid}").mkdir(parents=True)
    (root / f"sys/class/kfd/kfd/proc/{pid}/vram_55069").write_text(f"{vram}\n")
    (root / f"proc/{pid}").mkdir(parents=True)
    (root / f"proc/{pid}/comm").write_text(f"{name}\n")
    reading = amd.probe(ctx_at(root))
    assert reading.info.devices is not None
    assert reading.info.devices[0].pci_bus_id == "0000:07:00.0"
    assert reading.info.devices[0].gfx_target == "gfx1031"
    assert reading.telemetry[0].processes == (
        GpuProcess(pid=104225, used_memory_bytes=0, kind="compute", name="mlir-cpu-runner"),
    )


def test_in_tree_amdgpu_reports_the_kernel_release(tmp_path: Path) -> None:
    root = copy_tree(RX6700XT_ROOT, tmp_path)
    (root / "sys/module/amdgpu/version").unlink()
    (root / "proc/sys/kernel").mkdir(parents=True)
    # The kernel of the MI210 capture's in-tree amdgpu ("Linuxversion6.14.0-24-generic(...").
    (root / "proc/sys/kernel/osrelease").write_text("6.14.0-24-generic\n")
    assert amd.probe(ctx_at(root)).info.driver_version == "6.14.0-24-generic"


def test_no_amd_gpu_is_skipped_with_the_reason(tmp_path: Path) -> None:
    reading = amd.probe(ctx_at(tmp_path))
    assert reading.info.status == "skipped"
    assert reading.info.reason == "no AMD GPU: no AMD card under /sys/class/drm, no /dev/kfd"
    assert reading.telemetry == ()


def test_intel_cards_are_not_amd() -> None:
    assert amd.probe(ctx_at(DATA / "sysfs" / "intel-xe-i915")).info.status == "skipped"


def test_this_machine_has_no_amd_gpu() -> None:
    """The development machine: no /dev/kfd, no AMD card, amdsmi not usable → skipped, not failed."""
    reading = amd.probe(ProbeContext())
    assert reading.info.status == "skipped"
    assert reading.info.reason is not None
    assert reading.info.reason.startswith("no AMD GPU: no AMD card under /sys/class/drm, no /dev/kfd (amdsmi")


def test_failed_reading() -> None:
    assert amd.failed("amd probe timed out after 30 s").info.status == "failed"


# ---------------------------------------------------------------------------- amdsmi backend


def test_mi210_through_amdsmi() -> None:
    static = fx.amd_smi_static(fx.MI210_STATIC)[0]
    reading = amd.probe(ctx_at(Path("/nonexistent")), session=fake_amdsmi.session(fake_amdsmi.mi210_host()))
    info = reading.info
    assert (info.status, info.source, info.driver_version) == ("ok", "amdsmi", "6.14.0-24-generic")
    assert info.devices is not None
    device = info.devices[0]
    assert device.name == static["asic"]["market_name"] == "AMD Instinct MI210"
    assert device.gfx_target == static["asic"]["target_graphics_version"] == "gfx90a"
    assert device.device_id == "0x740f"
    assert device.compute_units == 104
    # No byte count in the capture: the total comes from vram_info's 65520 MB (MiB).
    assert device.memory_total_bytes == static["vram"]["size"]["value"] * fx.MIB
    assert device.pci_bus_id is None  # the capture's "bus" has no bdf: absent, not an error
    assert device.serial is None  # board product_serial "0"
    sample = reading.telemetry[0]
    assert sample.power_limit_watts == 300.0
    assert (sample.temperature_c, sample.power_draw_watts, sample.memory_used_bytes) == (None, None, None)


def test_mi250_through_amdsmi_matches_the_rocm_smi_captures() -> None:
    reading = amd.probe(ctx_at(Path("/nonexistent")), session=fake_amdsmi.session(fake_amdsmi.mi250_host()))
    assert reading.info.devices is not None
    assert [d.gfx_target for d in reading.info.devices] == ["gfx90a", "gfx90a"]
    assert [d.serial for d in reading.info.devices] == ["PCB052715-0006", "PCB052715-0065"]
    assert [d.memory_total_bytes for d in reading.info.devices] == [None, None]  # not in the captures
    names = ("name", *SAMPLE_FIELDS)
    assert [fields(s, names) for s in reading.telemetry] == [fields(s, names) for s in fx.mi250_samples()]
    assert [s.processes for s in reading.telemetry] == [(), ()]


def test_radeon_metrics_through_amdsmi_match_the_amd_smi_capture() -> None:
    reading = amd.probe(ctx_at(Path("/nonexistent")), session=fake_amdsmi.session(fake_amdsmi.radeon_host()))
    assert [fields(s) for s in reading.telemetry] == [fields(s) for s in fx.amd_smi_metric_samples()]
    assert reading.telemetry[0].temperature_c == 43.0  # edge, not hotspot (49) or memory (56)


def test_processes_through_amdsmi() -> None:
    reading = amd.probe(ctx_at(Path("/nonexistent")), session=fake_amdsmi.session(fake_amdsmi.mi100x6_host()))
    assert len(reading.telemetry) == 6
    assert reading.telemetry[0].processes == (
        GpuProcess(pid=104225, used_memory_bytes=0, kind="compute", name="mlir-cpu-runner"),
    )
    assert reading.telemetry[1].processes == ()


def test_amdsmi_init_failure_falls_back_to_sysfs() -> None:
    fake = fake_amdsmi.FakeAmdSmi(fake_amdsmi.mi250_gpus(), init_error=fake_amdsmi.AMDSMI_STATUS_NO_PERM)
    reading = amd.probe(ctx_at(MI100X4_ROOT), session=fake_amdsmi.session(fake))
    assert (reading.info.source, len(reading.telemetry)) == ("sysfs", 4)


def test_amdsmi_init_failure_without_cards_says_why(tmp_path: Path) -> None:
    fake = fake_amdsmi.FakeAmdSmi([], init_error=fake_amdsmi.AMDSMI_STATUS_INIT_ERROR)
    reading = amd.probe(ctx_at(tmp_path), session=fake_amdsmi.session(fake))
    assert reading.info.status == "skipped"
    assert reading.info.reason is not None
    assert "(amdsmi_init failed: Error code: 18 | AMDSMI_STATUS_INIT_ERROR)" in reading.info.reason


def test_amdsmi_seeing_no_gpu_falls_back_to_sysfs(tmp_path: Path) -> None:
    session = fake_amdsmi.session(fake_amdsmi.FakeAmdSmi([]))
    assert amd.probe(ctx_at(RX6700XT_ROOT), session=session).info.source == "sysfs"
    reason = amd.probe(ctx_at(tmp_path), session=session).info.reason
    assert reason is not None
    assert reason.endswith("(amdsmi sees no GPU)")


class MismatchedAmdSmi(fake_amdsmi.FakeAmdSmi):
    """A binding newer than its libamd_smi.so: a struct call fails in ctypes, not as AmdSmiException."""

    def amdsmi_get_gpu_asic_info(self, handle: fake_amdsmi.Handle) -> dict[str, object]:
        raise ctypes.ArgumentError("argument 2: TypeError: expected LP_amdsmi_asic_info_t instance")


def test_amdsmi_binding_mismatch_falls_back_to_sysfs(tmp_path: Path) -> None:
    session = fake_amdsmi.session(MismatchedAmdSmi(fake_amdsmi.mi250_gpus()))
    reading = amd.probe(ctx_at(MI100X4_ROOT), session=session)
    assert (reading.info.source, len(reading.telemetry)) == ("sysfs", 4)
    source = amd.open_telemetry(ctx_at(MI100X4_ROOT), session=session)
    assert source is not None
    assert source.name == "sysfs"
    reason = amd.probe(ctx_at(tmp_path), session=session).info.reason
    assert reason is not None
    assert reason.endswith(
        "(amdsmi failed: ArgumentError: argument 2: TypeError: expected LP_amdsmi_asic_info_t instance)"
    )


def test_amdsmi_is_initialised_once_for_probe_and_telemetry() -> None:
    fake = fake_amdsmi.mi250_host()
    session = fake_amdsmi.session(fake)
    ctx = ctx_at(Path("/nonexistent"))
    amd.probe(ctx, session=session)
    amd.probe(ctx, session=session)
    source = amd.open_telemetry(ctx, session=session)
    assert source is not None
    source.read()
    source.close()
    assert fake.init_calls == 1
    assert fake.shutdown_calls == 0  # the shared library stays up for the process


def _hostile_amdsmi(tmp_path: Path) -> Path:
    """An ``amdsmi`` package that behaves like AMD's without ROCm: two lines on stdout, then KeyError."""
    package = tmp_path / "site" / "amdsmi"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "print(\"'libamd_smi.so'\")\n"
        "print('Unable to find libamd_smi.so library try installing amd-smi-lib from your package manager')\n"
        "raise KeyError('libamd_smi.so')\n"
    )
    return package.parent


def test_amdsmi_import_failure_keeps_stdout_clean_and_falls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(_hostile_amdsmi(tmp_path)))
    monkeypatch.delitem(sys.modules, "amdsmi", raising=False)
    session = AmdSmiSession()  # the real loader: import_amdsmi
    with_cards = amd.probe(ctx_at(RX6700XT_ROOT), session=session)
    without = amd.probe(ctx_at(tmp_path / "empty"), session=session)
    assert capsys.readouterr().out == ""
    assert "amdsmi" not in sys.modules
    assert (with_cards.info.status, with_cards.info.source) == ("ok", "sysfs")
    assert without.info.status == "skipped"
    assert without.info.reason is not None
    assert without.info.reason.endswith("(amdsmi: libamd_smi.so not found (ROCm not installed?))")


def test_amdsmi_import_failure_with_attribute_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A libamd_smi.so missing a symbol makes the binding raise AttributeError at import."""
    package = tmp_path / "site" / "amdsmi"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise AttributeError('amdsmi_get_cpu_affinity_with_scope')\n")
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.delitem(sys.modules, "amdsmi", raising=False)
    smi, reason = AmdSmiSession().open()
    assert smi is None
    assert reason == "amdsmi import failed: AttributeError: amdsmi_get_cpu_affinity_with_scope"


# ---------------------------------------------------------------------------- telemetry sources


def test_sysfs_telemetry_source_rereads_live_values(tmp_path: Path) -> None:
    root = copy_tree(MI100X4_ROOT, tmp_path)
    source = amd.open_telemetry(ctx_at(root))
    assert source is not None
    assert source.name == "sysfs"
    first = source.read()
    assert [fields(s) for s in first] == [fields(s) for s in fx.rocm_smi_samples(fx.MI100X4)]
    # The 6x-MI100 capture's used VRAM, as if the workload had grown between two samples.
    used = fx.rocm_smi_cards(fx.MI100X6)[0]["VRAM Total Used Memory (B)"]
    (root / "sys/class/drm/card2/device/mem_info_vram_used").write_text(used + "\n")
    second = source.read()
    assert second[2].memory_used_bytes == int(used) != first[2].memory_used_bytes
    source.close()


def test_amdsmi_telemetry_source_through_the_sampler() -> None:
    source = amd.open_telemetry(
        ctx_at(Path("/nonexistent")), session=fake_amdsmi.session(fake_amdsmi.mi250_host())
    )
    assert source is not None
    assert source.name == "amdsmi"
    sample = Sampler([source], clock=lambda: "2026-11-29T12:00:00.000Z").sample()
    assert sample.errors is None
    assert [d.pci_bus_id for d in sample.devices] == ["0000:29:00.0", "0000:2F:00.0"]
    assert [d.temperature_c for d in sample.devices] == [43.0, 32.0]


def test_no_telemetry_source_without_an_amd_gpu(tmp_path: Path) -> None:
    assert amd.open_telemetry(ctx_at(tmp_path)) is None
    assert (
        amd.open_telemetry(ctx_at(tmp_path), session=fake_amdsmi.session(fake_amdsmi.FakeAmdSmi([]))) is None
    )
