"""The nvidia-smi XML parser against every recorded file (tests/data/nvidia/*.xml).

Expected values are read from each file in the test with plain ElementTree, not retyped, so a
test can only pass if the parser finds the value where that schema generation put it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from envsnap.errors import BadInput
from envsnap.probes.nvidia.names import (
    format_cuda_version,
    mig_profile,
    normalize_pci_bus_id,
    throttle_reason_names,
)
from envsnap.probes.nvidia.smi_xml import parse
from tests.fakes.fake_nvml import NVIDIA_DATA, fixture_text

XML_FILES = sorted(path.name for path in NVIDIA_DATA.glob("*.xml"))
A100_80_MIG = "a100-sxm4-80gb_mig-enabled_driver-535.54.03_dtd-v12.xml"
A100_40_MIG_V11 = "a100-sxm4-40gb_mig-enabled_driver-510.47.03_dtd-v11.xml"
V100_X8 = "8x-tesla-v100s-pcie-32gb_driver-460.73.01_dtd-v11.xml"
RTX2080_WINDOWS = "geforce-rtx-2080_windows-wddm_driver-516.59_dtd-v11.xml"
RTX3080_WDDM_V12 = "geforce-rtx-3080_wddm_driver-536.40_dtd-v12.xml"
RTX3080_V13 = "geforce-rtx-3080_driver-595.58.03_dtd-v13.xml"
RTX4090 = "geforce-rtx-4090_driver-535.86.05_dtd-v12.xml"
GTX1050_NO_HEADER = "geforce-gtx-1050_driver-515.65.01_no-xml-header.xml"
P400_NO_DOCTYPE = "quadro-p400_driver-418.43_no-doctype.xml"
A10G = "a10g_driver-515.105.01_dtd-v11.xml"


def _tree(name: str) -> ET.Element:
    """The file as plain ElementTree sees it (its DOCTYPE line is harmless to expat)."""
    return ET.fromstring(fixture_text(name))


def _mib(text: str) -> int:
    number, unit = text.split()
    assert unit == "MiB"
    return int(number) * 1024 * 1024


def test_all_generations_are_covered() -> None:
    headers = [fixture_text(name)[:120] for name in XML_FILES]
    assert len(XML_FILES) == 19
    for dtd in ("v11", "v12", "v13"):
        assert any(f"nvsmi_device_{dtd}.dtd" in header for header in headers), dtd
    assert any("<!DOCTYPE" not in header and header.startswith("<?xml") for header in headers)
    assert any(header.startswith("<nvidia_smi_log>") for header in headers)


@pytest.mark.parametrize("name", XML_FILES)
def test_every_file_parses_to_its_gpus_driver_and_memory(name: str) -> None:
    root = _tree(name)
    gpus = root.findall("gpu")
    report = parse(fixture_text(name))
    info = report.info
    assert info.status == "ok"
    assert info.source == "nvidia-smi"
    assert info.driver_version == root.findtext("driver_version")
    assert info.cuda_driver_version == root.findtext("cuda_version")
    assert info.devices is not None
    assert len(info.devices) == len(gpus) == len(report.samples)
    for index, (device, sample, gpu) in enumerate(zip(info.devices, report.samples, gpus, strict=True)):
        assert device.index == sample.index == index
        assert device.name == gpu.findtext("product_name")
        assert device.uuid == gpu.findtext("uuid")
        assert (
            device.memory_total_bytes
            == sample.memory_total_bytes
            == _mib(gpu.findtext("fb_memory_usage/total", ""))
        )
        assert sample.memory_used_bytes == _mib(gpu.findtext("fb_memory_usage/used", ""))
        assert device.pci_bus_id is not None
        assert re.fullmatch(r"[0-9A-F]{4}:[0-9A-F]{2}:[0-9A-F]{2}\.[0-7]", device.pci_bus_id)
        assert device.pci_bus_id == normalize_pci_bus_id(gpu.findtext("pci/pci_bus_id", ""))
        assert (sample.vendor, sample.name, sample.pci_bus_id, sample.uuid) == (
            "nvidia",
            device.name,
            device.pci_bus_id,
            device.uuid,
        )
        assert device.compute_capability is None  # nvidia-smi's XML does not carry it


def test_import_source_is_recorded() -> None:
    assert parse(fixture_text(RTX4090), source="import").info.source == "import"


def test_a100_80gb_mig_instances_come_from_the_file() -> None:
    gpu = _tree(A100_80_MIG).find("gpu")
    assert gpu is not None
    recorded = gpu.findall("mig_devices/mig_device")
    device = parse(fixture_text(A100_80_MIG)).info.devices[0]  # type: ignore[index]
    assert device.mig_enabled is True
    assert device.mig_instances is not None
    assert len(device.mig_instances) == len(recorded) == 4
    for instance, mig in zip(device.mig_instances, recorded, strict=True):
        assert instance.gpu_instance_id == int(mig.findtext("gpu_instance_id", ""))
        assert instance.compute_instance_id == int(mig.findtext("compute_instance_id", ""))
        assert instance.memory_total_bytes == _mib(mig.findtext("fb_memory_usage/total", ""))
        assert instance.profile is None
        assert instance.uuid is None


def test_a100_40gb_mig_in_the_older_v11_schema() -> None:
    device = parse(fixture_text(A100_40_MIG_V11)).info.devices[0]  # type: ignore[index]
    assert device.mig_enabled is True
    assert [m.gpu_instance_id for m in device.mig_instances or ()] == [
        int(m.findtext("gpu_instance_id", "")) for m in _tree(A100_40_MIG_V11).iter("mig_device")
    ]


def test_mig_not_available_is_absent_not_false() -> None:
    gpu = _tree(RTX4090).find("gpu")
    assert gpu is not None
    assert gpu.findtext("mig_mode/current_mig") == "N/A"
    device = parse(fixture_text(RTX4090)).info.devices[0]  # type: ignore[index]
    assert device.mig_enabled is None
    assert device.mig_instances is None
    assert device.architecture == gpu.findtext("product_architecture") == "Ada Lovelace"
    assert device.ecc_enabled is False  # "Disabled" is an observation, kept as False


def test_eight_v100s_keep_order_identity_and_load() -> None:
    root = _tree(V100_X8)
    report = parse(fixture_text(V100_X8))
    devices = report.info.devices or ()
    assert len(devices) == 8
    assert len({d.pci_bus_id for d in devices}) == 8
    assert len({d.uuid for d in devices}) == 8
    for sample, gpu in zip(report.samples, root.findall("gpu"), strict=True):
        assert sample.gpu_util_percent == float(gpu.findtext("utilization/gpu_util", "").split()[0])
        assert sample.power_draw_watts == float(gpu.findtext("power_readings/power_draw", "").split()[0])
        assert sample.ecc_errors_corrected == int(gpu.findtext("ecc_errors/volatile/single_bit/total", ""))
        pids = sorted(int(p.findtext("pid", "")) for p in gpu.findall("processes/process_info"))
        assert [p.pid for p in sample.processes or ()] == pids


@pytest.mark.parametrize("name", [RTX2080_WINDOWS, RTX3080_WDDM_V12])
def test_windows_wddm_driver_model_and_unattributed_memory(name: str) -> None:
    root = _tree(name)
    report = parse(fixture_text(name))
    device = (report.info.devices or ())[0]
    assert device.driver_model == root.findtext("gpu/driver_model/current_dm") == "WDDM"
    assert device.persistence_mode is None  # Linux-only setting, "N/A" under Windows
    recorded = root.findall("gpu/processes/process_info")
    processes = report.samples[0].processes or ()
    assert len(processes) == len(recorded) > 0
    unattributed = {int(p.findtext("pid", "")) for p in recorded if p.findtext("used_memory") == "N/A"}
    assert {p.pid for p in processes if p.used_memory_bytes is None} == unattributed


def test_linux_driver_model_is_absent() -> None:
    assert parse(fixture_text(RTX4090)).info.devices[0].driver_model is None  # type: ignore[index]


def test_v13_power_draw_comes_from_average_power_draw() -> None:
    gpu = _tree(RTX3080_V13).find("gpu")
    assert gpu is not None
    assert gpu.find("gpu_power_readings/power_draw") is None
    sample = parse(fixture_text(RTX3080_V13)).samples[0]
    assert sample.power_draw_watts == float(
        gpu.findtext("gpu_power_readings/average_power_draw", "").split()[0]
    )
    assert sample.power_limit_watts == float(
        gpu.findtext("gpu_power_readings/current_power_limit", "").split()[0]
    )


def test_placeholders_become_absent_fields() -> None:
    gpu = _tree(GTX1050_NO_HEADER).find("gpu")
    assert gpu is not None
    assert gpu.findtext("power_readings/power_draw") == "N/A"
    assert gpu.findtext("serial") == "N/A"
    device = parse(fixture_text(GTX1050_NO_HEADER)).info.devices[0]  # type: ignore[index]
    sample = parse(fixture_text(GTX1050_NO_HEADER)).samples[0]
    assert sample.power_draw_watts is None
    assert device.serial is None
    assert device.ecc_enabled is None


def test_throttle_reasons_and_remapped_rows() -> None:
    gpu = _tree(A10G).find("gpu")
    assert gpu is not None
    active = [
        child.tag.removeprefix("clocks_throttle_reason_")
        for child in gpu.findall("clocks_throttle_reasons/*")
        if child.text == "Active"
    ]
    sample = parse(fixture_text(A10G)).samples[0]
    assert sample.throttle_reasons == tuple(active) == ("gpu_idle",)
    assert sample.remapped_rows_pending is (gpu.findtext("remapped_rows/remapped_row_pending") == "Yes")


def test_oldest_no_doctype_file() -> None:
    device = parse(fixture_text(P400_NO_DOCTYPE)).info.devices[0]  # type: ignore[index]
    assert device.architecture is None  # 418.43 did not print product_architecture yet
    assert device.name == "Quadro P400"


# ---------------------------------------------------------------------------- hostile input

_BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE nvidia_smi_log [
  <!ENTITY a "aaaaaaaaaa">
  <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
  <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
]>
<nvidia_smi_log><driver_version>&c;</driver_version></nvidia_smi_log>"""

_EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE nvidia_smi_log [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<nvidia_smi_log><driver_version>&secret;</driver_version></nvidia_smi_log>"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_BILLION_LAUGHS, "refusing a DOCTYPE"),
        (_EXTERNAL_ENTITY, "refusing a DOCTYPE"),
        ("<nvidia_smi_log><gpu></nvidia_smi_log>", "not well-formed"),
        ("<nvidia_smi_log>&undefined;</nvidia_smi_log>", "not well-formed"),
        ('<?xml version="1.0"?><rocm_smi/>', "expected <nvidia_smi_log>"),
        ("", "not well-formed"),
        ("<nvidia_smi_log>" + " " * (33 << 20) + "</nvidia_smi_log>", "too large"),
    ],
    ids=[
        "billion-laughs",
        "external-entity",
        "unclosed",
        "undefined-entity",
        "wrong-root",
        "empty",
        "oversized",
    ],
)
def test_hostile_or_broken_input_is_one_line_bad_input(text: str, message: str) -> None:
    with pytest.raises(BadInput, match=message) as caught:
        parse(text)
    assert "\n" not in str(caught.value)


def test_the_real_doctype_line_is_accepted_and_nothing_else_is() -> None:
    text = fixture_text(RTX4090)
    assert '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">' in text
    smuggled = text.replace(
        '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">',
        '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd" [<!ENTITY x "y">]>',
    )
    with pytest.raises(BadInput):
        parse(smuggled)


# ---------------------------------------------------------------------------- shared vocabulary


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("00000000:3b:00.0", "0000:3B:00.0"),
        ("0000:3B:00.0", "0000:3B:00.0"),
        ("3b:00.0", "0000:3B:00.0"),
        ("00010000:01:00.0", "10000:01:00.0"),
        ("not a bus id", None),
    ],
)
def test_pci_bus_ids_are_normalized(raw: str, expected: str | None) -> None:
    assert normalize_pci_bus_id(raw) == expected


def test_throttle_bitmask_decodes_known_and_unknown_bits() -> None:
    assert throttle_reason_names(0) == ()
    assert throttle_reason_names(0x1) == ("gpu_idle",)
    assert throttle_reason_names(0x4 | 0x40) == ("sw_power_cap", "hw_thermal_slowdown")
    assert throttle_reason_names(0x400) == ("bit_0x400",)


def test_cuda_driver_version_and_mig_profile_formatting() -> None:
    assert format_cuda_version(12040) == "12.4"
    assert format_cuda_version(13010) == "13.1"
    assert format_cuda_version(0) is None
    # NVML names a MIG device "<GPU name> MIG <profile>"; profiles as in the H100 MIG capture's -L.
    assert mig_profile("NVIDIA H100 80GB HBM3 MIG 3g.40gb") == "3g.40gb"
    assert mig_profile("NVIDIA H100 80GB HBM3") is None
