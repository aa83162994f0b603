"""The NVIDIA probe and telemetry source against fake NVML modules replaying real recordings.

Each scenario reproduces one way NVML answers on real hosts (see tests/fakes/fake_nvml.py); the
values come from the recorded nvidia-smi XML of real GPUs (tests/data/nvidia/).
"""

from __future__ import annotations

import ctypes.util
import shutil
import stat
import threading
from pathlib import Path
from typing import Any

import msgspec
import pynvml
import pytest

from envsnap.live.sampler import Sampler
from envsnap.probes.base import ProbeContext
from envsnap.probes.nvidia import probe as nvidia
from envsnap.probes.nvidia.smi_xml import parse
from envsnap.snapshot.model import NvidiaDevice
from tests.fakes.fake_nvml import COMPUTE_CAPABILITY, NVIDIA_DATA, FakeHandle, FakeNvml, fixture_text

A100_80_MIG = "a100-sxm4-80gb_mig-enabled_driver-535.54.03_dtd-v12.xml"
V100_X8 = "8x-tesla-v100s-pcie-32gb_driver-460.73.01_dtd-v11.xml"
RTX4090 = "geforce-rtx-4090_driver-535.86.05_dtd-v12.xml"
RTX3090 = "geforce-rtx-3090_driver-525.147.05_dtd-v12.xml"
RTX3080_WDDM = "geforce-rtx-3080_wddm_driver-536.40_dtd-v12.xml"
P400_418 = "quadro-p400_driver-418.43_no-doctype.xml"
ROOTS = NVIDIA_DATA / "roots"


@pytest.fixture(autouse=True)
def _fresh_nvml_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with NVML not yet initialised in this process."""
    monkeypatch.setattr(nvidia, "_SESSION", nvidia._NvmlSession())


def _ctx(tmp_path: Path, root: Path | None = None, path: str = "") -> ProbeContext:
    """A context with no nvidia-smi on PATH and no /proc/driver/nvidia unless a root is given."""
    return ProbeContext(root=root or tmp_path, environ={"PATH": path})


def _probe(
    tmp_path: Path, fixture: str, scenario: str = "basic", **kwargs: Any
) -> tuple[nvidia.NvidiaReading, FakeNvml]:
    fake = FakeNvml(fixture_text(fixture), scenario, **kwargs)
    return nvidia.probe(_ctx(tmp_path), nvml=fake), fake


def _without(device: NvidiaDevice, *fields: str) -> dict[str, Any]:
    data = msgspec.structs.asdict(device)
    for name in fields:
        data.pop(name)
    return data


# ---------------------------------------------------------------------------- this machine


def test_this_machine_probe_matches_whether_a_driver_is_installed() -> None:
    reading = nvidia.probe(ProbeContext())
    if ctypes.util.find_library("nvidia-ml") is None:  # the development machine: toolkit, no driver
        assert reading.info.status == "skipped"
        assert reading.info.reason == nvidia.LIBRARY_MISSING
        assert reading.info.devices is None
        assert reading.telemetry == ()
        assert nvidia.open_telemetry() is None
    else:
        assert reading.info.status in ("ok", "failed")
        assert reading.info.source == "nvml"


# ---------------------------------------------------------------------------- basic recordings


def test_a100_mig_host_through_nvml_matches_the_recording(tmp_path: Path) -> None:
    reading, fake = _probe(tmp_path, A100_80_MIG)
    recorded = parse(fixture_text(A100_80_MIG))
    info = reading.info
    assert (info.status, info.source) == ("ok", "nvml")
    assert info.driver_version == recorded.info.driver_version == "535.54.03"
    assert info.cuda_driver_version == recorded.info.cuda_driver_version == "12.2"
    assert info.nvml_version is None  # the recording has none, so the fake answers NotSupported
    device = (info.devices or ())[0]
    assert device.compute_capability == "8.0"
    assert _without(device, "compute_capability") == _without(
        (recorded.info.devices or ())[0], "compute_capability"
    )
    assert device.mig_enabled is True
    assert [m.gpu_instance_id for m in device.mig_instances or ()] == [3, 4, 5, 6]
    # Seven MIG slots, three empty: the empty ones answer NOT_FOUND and are skipped.
    assert fake.calls["nvmlDeviceGetMigDeviceHandleByIndex"] == 7
    assert reading.telemetry == recorded.samples


def test_consumer_rtx_4090(tmp_path: Path) -> None:
    reading, _ = _probe(tmp_path, RTX4090)
    device = (reading.info.devices or ())[0]
    recorded = (parse(fixture_text(RTX4090)).info.devices or ())[0]
    assert device.compute_capability == "8.9"
    assert device.architecture == recorded.architecture == "Ada Lovelace"
    assert device.power_limit_watts == recorded.power_limit_watts == 450.0
    assert device.mig_enabled is None
    assert device.mig_instances is None
    assert device.pci_bus_id == "0000:84:00.0"  # NVML's 00000000:84:00.0, normalized


def test_eight_v100s_are_sorted_by_pci_bus_id(tmp_path: Path) -> None:
    reading, _ = _probe(tmp_path, V100_X8)
    devices = reading.info.devices or ()
    assert len(devices) == 8
    assert [d.pci_bus_id for d in devices] == sorted(d.pci_bus_id or "" for d in devices)
    assert {d.compute_capability for d in devices} == {"7.0"}
    assert [s.pci_bus_id for s in reading.telemetry] == [d.pci_bus_id for d in devices]
    assert all(s.processes for s in reading.telemetry)


def test_windows_wddm_driver_model_through_nvml(tmp_path: Path) -> None:
    reading, _ = _probe(tmp_path, RTX3080_WDDM)
    assert (reading.info.devices or ())[0].driver_model == "WDDM"


def test_processes_carry_names_and_memory(tmp_path: Path) -> None:
    reading, _ = _probe(tmp_path, "tesla-t4_driver-515.105.01_dtd-v11.xml")
    recorded = parse(fixture_text("tesla-t4_driver-515.105.01_dtd-v11.xml")).samples[0]
    assert reading.telemetry[0].processes == recorded.processes
    assert all(p.name and p.used_memory_bytes for p in reading.telemetry[0].processes or ())


# ---------------------------------------------------------------------------- failure scenarios


def test_library_missing_is_skipped_with_the_reason(tmp_path: Path) -> None:
    reading, _ = _probe(tmp_path, RTX3090, "library_missing")
    assert reading.info.status == "skipped"
    assert reading.info.reason == "NVIDIA driver not installed (libnvidia-ml.so.1 not found)"
    assert reading.info.devices is None


def test_library_missing_with_a_loaded_kernel_module_says_so(tmp_path: Path) -> None:
    fake = FakeNvml(fixture_text(RTX3090), "library_missing")
    reading = nvidia.probe(_ctx(tmp_path, root=ROOTS / "open-565"), nvml=fake)
    assert reading.info.status == "skipped"
    assert reading.info.kernel_module_version == "565.57.01"
    assert "kernel module 565.57.01 is loaded" in (reading.info.reason or "")


def test_driver_library_mismatch_is_failed_and_flagged(tmp_path: Path) -> None:
    fake = FakeNvml(fixture_text(RTX3090), "driver_library_mismatch")
    reading = nvidia.probe(_ctx(tmp_path, root=ROOTS / "proprietary-384"), nvml=fake)
    info = reading.info
    assert info.status == "failed"
    assert info.library_version_mismatch is True
    assert "version mismatch" in (info.reason or "")
    assert info.kernel_module_version == "384.98"


def test_no_permission_is_failed(tmp_path: Path) -> None:
    reading, _ = _probe(tmp_path, RTX3090, "no_permission")
    assert reading.info.status == "failed"
    assert "insufficient permissions" in (reading.info.reason or "")
    assert reading.info.library_version_mismatch is None


def test_functions_an_old_driver_lacks_become_absent_fields(tmp_path: Path) -> None:
    reading, fake = _probe(tmp_path, P400_418, "function_not_found")
    recorded = parse(fixture_text(P400_418))
    device = (reading.info.devices or ())[0]
    sample = reading.telemetry[0]
    assert reading.info.status == "ok"
    assert reading.info.cuda_driver_version == "10.1"  # from the unversioned fallback
    assert device.architecture is None
    assert device.compute_capability == "6.1"
    # Memory falls back to v1, where used includes reserved memory: total - free.
    assert sample.memory_used_bytes == (sample.memory_total_bytes or 0) - (sample.memory_free_bytes or 0)
    assert fake.calls["nvmlDeviceGetMemoryInfo_v2"] == 1
    # Throttle reasons fall back to the pre-535 name of the same call.
    assert sample.throttle_reasons == recorded.samples[0].throttle_reasons == ("gpu_idle",)
    assert fake.calls["nvmlDeviceGetCurrentClocksThrottleReasons"] == 1
    assert sample.processes == ()  # _v3 missing, _v2 answers: no processes


def test_power_not_supported_leaves_only_power_absent(tmp_path: Path) -> None:
    basic, _ = _probe(tmp_path, RTX3090)
    reading, _ = _probe(tmp_path, RTX3090, "power_not_supported")
    device, sample = (reading.info.devices or ())[0], reading.telemetry[0]
    assert device.power_limit_watts is None
    assert sample.power_draw_watts is None
    assert sample.power_limit_watts is None
    expected = (basic.info.devices or ())[0]
    assert _without(device, "power_limit_watts") == _without(expected, "power_limit_watts")
    assert basic.telemetry[0].power_draw_watts == 27.23


def test_one_lost_gpu_among_eight(tmp_path: Path) -> None:
    reading, _ = _probe(tmp_path, V100_X8, "gpu_lost", lost_index=3)
    devices = {d.index: d for d in reading.info.devices or ()}
    assert reading.info.status == "ok"
    assert len(devices) == 8
    assert devices[3].status == "lost"
    assert "GPU is lost" in (devices[3].reason or "")
    assert all(d.status == "ok" and d.name == "Tesla V100S-PCIE-32GB" for i, d in devices.items() if i != 3)
    lost = [s for s in reading.telemetry if s.index == 3]
    assert len(lost) == 1
    assert lost[0].status == "lost"
    assert sum(1 for s in reading.telemetry if s.status == "ok") == 7


def test_a_gpu_that_refuses_its_handle_is_failed_the_others_read(tmp_path: Path) -> None:
    class NoAccessToGpu0(FakeNvml):
        def nvmlDeviceGetHandleByIndex(self, index: int) -> FakeHandle:
            if index == 0:
                raise pynvml.NVMLError_NoPermission()
            return super().nvmlDeviceGetHandleByIndex(index)

    fake = NoAccessToGpu0(fixture_text(V100_X8))
    reading = nvidia.probe(_ctx(tmp_path), nvml=fake)
    devices = {d.index: d for d in reading.info.devices or ()}
    assert devices[0].status == "failed"
    assert "no permission" in (devices[0].reason or "")
    assert devices[1].status == "ok"
    assert devices[1].memory_total_bytes


def test_missing_bindings_fall_back_quietly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nvidia, "load_nvml", lambda: None)
    reading = nvidia.probe(_ctx(tmp_path))
    assert reading.info.status == "skipped"
    assert "nvidia-ml-py is not installed" in (reading.info.reason or "")


def test_failed_reading() -> None:
    reading = nvidia.failed("nvidia probe timed out after 30 s")
    assert (reading.info.status, reading.info.reason, reading.telemetry) == (
        "failed",
        "nvidia probe timed out after 30 s",
        (),
    )


# ---------------------------------------------------------------------------- nvidia-smi fallback


def _fake_nvidia_smi(tmp_path: Path, body: str) -> str:
    """A ``nvidia-smi`` executable on a private PATH (the hardware boundary, replayed)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "nvidia-smi"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(folder)


def test_nvidia_smi_xml_when_nvml_cannot_load(tmp_path: Path) -> None:
    xml_file = NVIDIA_DATA / RTX4090
    cat = shutil.which("cat")
    path = _fake_nvidia_smi(tmp_path, f'[ "$1 $2" = "-q -x" ] && exec {cat} "{xml_file}"\nexit 2')
    fake = FakeNvml(fixture_text(RTX4090), "library_missing")
    reading = nvidia.probe(_ctx(tmp_path, path=path), nvml=fake)
    recorded = parse(fixture_text(RTX4090))
    assert reading.info.status == "ok"
    assert reading.info.source == "nvidia-smi"
    assert reading.info.devices == recorded.info.devices
    assert reading.telemetry == recorded.samples


def test_nvidia_smi_that_cannot_reach_the_driver(tmp_path: Path) -> None:
    message = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running."
    )
    path = _fake_nvidia_smi(tmp_path, f'echo "{message}"\nexit 9')
    reading = nvidia.probe(_ctx(tmp_path, path=path), nvml=FakeNvml(fixture_text(RTX4090), "library_missing"))
    assert reading.info.status == "skipped"
    assert reading.info.reason == f"{nvidia.LIBRARY_MISSING}; nvidia-smi: {message}"


def test_nvidia_smi_reporting_a_version_mismatch(tmp_path: Path) -> None:
    path = _fake_nvidia_smi(
        tmp_path, 'echo "Failed to initialize NVML: Driver/library version mismatch"\nexit 18'
    )
    reading = nvidia.probe(_ctx(tmp_path, path=path), nvml=FakeNvml(fixture_text(RTX4090), "library_missing"))
    assert reading.info.status == "failed"
    assert reading.info.library_version_mismatch is True


# ---------------------------------------------------------------------------- kernel module


@pytest.mark.parametrize(("root", "version"), [("proprietary-384", "384.98"), ("open-565", "565.57.01")])
def test_kernel_module_version_from_proc(root: str, version: str) -> None:
    assert nvidia.kernel_module_version(ProbeContext(root=ROOTS / root)) == version


def test_kernel_module_version_absent_without_the_module(tmp_path: Path) -> None:
    assert nvidia.kernel_module_version(ProbeContext(root=tmp_path)) is None


# ---------------------------------------------------------------------------- telemetry source


def test_nvml_is_initialised_once_for_probe_and_telemetry(tmp_path: Path) -> None:
    fake = FakeNvml(fixture_text(V100_X8))
    nvidia.probe(_ctx(tmp_path), nvml=fake)
    nvidia.probe(_ctx(tmp_path), nvml=fake)
    source = nvidia.open_telemetry(nvml=fake)
    assert source is not None
    for _ in range(3):
        source.read()
    assert fake.calls["nvmlInit"] == 1


def test_telemetry_source_reads_what_the_probe_samples(tmp_path: Path) -> None:
    fake = FakeNvml(fixture_text(V100_X8))
    reading = nvidia.probe(_ctx(tmp_path), nvml=fake)
    source = nvidia.open_telemetry(nvml=fake)
    assert source is not None
    assert source.name == "nvml"
    handles_before = fake.calls["nvmlDeviceGetHandleByIndex"]
    samples = source.read()
    assert sorted(samples, key=lambda s: s.pci_bus_id or "") == list(reading.telemetry)
    assert fake.calls["nvmlDeviceGetHandleByIndex"] == handles_before  # handles are kept, not re-fetched
    sample = Sampler([source]).sample()
    assert len(sample.devices) == 8
    assert sample.errors is None
    source.close()
    with pytest.raises(RuntimeError, match="closed"):
        source.read()


def test_telemetry_keeps_reading_when_one_gpu_is_lost() -> None:
    source = nvidia.open_telemetry(nvml=FakeNvml(fixture_text(V100_X8), "gpu_lost", lost_index=5))
    assert source is not None
    samples = {s.index: s for s in source.read()}
    assert samples[5].status == "lost"
    assert all(s.status == "ok" and s.memory_used_bytes is not None for i, s in samples.items() if i != 5)


@pytest.mark.parametrize("scenario", ["library_missing", "driver_library_mismatch", "no_permission"])
def test_no_telemetry_source_when_nvml_cannot_start(scenario: str) -> None:
    assert nvidia.open_telemetry(nvml=FakeNvml(fixture_text(RTX3090), scenario)) is None


def test_fake_serves_compute_capability_only_for_known_products() -> None:
    # Guards the fake itself: a product missing from the published table answers NotSupported.
    fake = FakeNvml(fixture_text("geforce-gtx-1660-ti_driver-418.43_no-doctype.xml"))
    assert "Graphics Device" not in COMPUTE_CAPABILITY
    with pytest.raises(pynvml.NVMLError_NotSupported):
        fake.nvmlDeviceGetCudaComputeCapability(FakeHandle(0))


def test_a_hung_nvml_init_in_another_thread_does_not_hang_the_next_caller(tmp_path: Path) -> None:
    release = threading.Event()
    entered = threading.Event()

    class HungInit(FakeNvml):
        def nvmlInit(self) -> None:
            entered.set()
            release.wait(10)  # a driver call that never returns (until the test ends)

    fake = HungInit(fixture_text(RTX3090))
    session = nvidia._SESSION
    worker = threading.Thread(target=session.start, args=(fake,), daemon=True)
    worker.start()
    assert entered.wait(5)
    try:
        with pytest.raises(nvidia.NvmlBusy, match="has not returned"):
            session.start(fake, wait_s=0.05)
    finally:
        release.set()
        worker.join(5)
