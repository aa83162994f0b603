"""Readers fixed after blind batch 10: each test is a real excerpt from the thread it names."""

from __future__ import annotations

from envsnap.importers import evidence
from tests.rules.pasted import findings_of, kinds_of, snapshot_of

HIPCONFIG_ROCM_3_10 = """$ /opt/rocm-3.10.0/bin/hipconfig 
HIP version  : 3.10.20465-f9876b8d

== hipconfig
HIP_PATH     : /opt/rocm-3.10.0/hip
ROCM_PATH    : /opt/rocm-3.10.0
HIP_COMPILER : clang
HIP_PLATFORM : hcc
HIP_RUNTIME  : ROCclr
"""
"""ROCm/HIP-Examples#23."""

HIPCONFIG_FULL_HIP_4_2 = """HIP version  : 4.2.21155-37cb3a34

== hipconfig
HIP_PATH     : /opt/hip
ROCM_PATH    : /opt/rocm
HIP_COMPILER : clang
HIP_PLATFORM : amd
HIP_RUNTIME  : rocclr
hip-clang-cxxflags : Can't exec "/opt/rocm/bin/rocm_agent_enumerator": No such file or directory at \
/opt/hip/bin/hipcc line 592.
"""
"""ROCm/legacy-rocm-build#1518 (``hipconfig --full`` of a manual HIP install)."""

HIPCONFIG_HIP_1_4 = """raymon@raymonR7:/opt/rocm/hip/bin$ ./hipconfig
HIP version  : 1.4.0

== hipconfig
HIP_PATH     : /opt/rocm/hip/bin
HIP_PLATFORM : hcc
"""
"""ROCm/hip#338."""

HIPCONFIG_ROCM_6_2 = """HIP version: 6.2.41133-dd7f95766

==hipconfig
HIP_PATH           :/opt/rocm-6.2.0
ROCM_PATH          :/opt/rocm-6.2.0
HIP_COMPILER       :clang
HIP_PLATFORM       :amd
"""
"""ROCm/hip#3521 (the layout without spaces after the colon)."""

VULKAN_GFX1151 = (
    "ggml_vulkan: Found 1 Vulkan devices:\n"
    "ggml_vulkan: 0 = AMD Radeon Graphics (RADV GFX1151) (radv) | uma: 1 | fp16: 1 | bf16: 0 | warp size: 64 "
    "| shared memory: 65536 | int dot: 1 | matrix cores: KHR_coopmat\n"
)
"""ggml-org/llama.cpp#20142."""

VULKAN_UHD_620 = (
    "ggml_vulkan: Found 1 Vulkan devices:\n"
    "ggml_vulkan: 0 = Intel(R) UHD Graphics 620 (KBL GT2) (Intel open-source Mesa driver) | uma: 1 | fp16: 1 "
    "| warp size: 32 | shared memory: 65536 | int dot: 0 | matrix cores: none\n"
    "ggml_opencl: plaform IDs not available.\n"
)
"""ggml-org/llama.cpp#13248."""

VULKAN_RTX_3060 = (
    "ggml_vulkan: Found 1 Vulkan devices:\n"
    "ggml_vulkan: 0 = NVIDIA GeForce RTX 3060 (NVIDIA) | uma: 0 | fp16: 1 | warp size: 32 | matrix cores: "
    "KHR_coopmat\n"
    "version: 4641 (9f4cc8f8)\n"
)
"""ggml-org/llama.cpp#11668."""

VULKAN_RX_570_OLD = (
    "ggml_vulkan: Found 1 Vulkan devices:\n"
    "Vulkan0: Radeon RX 570 Series (AMD proprietary driver) | uma: 0 | fp16: 0 | warp size: 64\n"
)
"""ollama/ollama#5059 (the older ``VulkanN:`` form)."""

XPU_SMI_FLEX_170 = """(base) ats@localhost:~> xpu-smi discovery -d 0
+-----------+--------------------------------------------------------------------------------------+
| Device ID | Device Information                                                                   |
+-----------+--------------------------------------------------------------------------------------+
| 0         | Device Type: GPU                                                                     |
|           | Device Name: Intel(R) Data Center GPU Flex 170                                       |
|           | PCI Device ID: 0x56c0                                                                |
|           | Vendor Name: Intel(R) Corporation                                                    |
"""
"""intel/xpumanager#69."""

XPU_SMI_TWO = """\
| 0         | Device Name: Intel(R) UHD Graphics 770                                               |
|           | Vendor Name: Intel(R) Corporation                                                    |
|           | SOC UUID: 00000000-0000-0200-0000-000c46808086                                       |
+-----------+--------------------------------------------------------------------------------------+
| 1         | Device Name: Intel(R) Data Center GPU Flex 140                                       |
|           | Vendor Name: Intel(R) Corporation                                                    |
"""
"""intel-gpu/intel-gpu-i915-backports#167 (the first row of a device carries its id)."""

IPEX_NO_DEVICE = (
    "Imported IPEX\n"
    "/home/pacf/.local/lib/python3.9/site-packages/intel_extension_for_pytorch/xpu/lazy_init.py:73: "
    "UserWarning: DPCPP Device count is zero! (Triggered internally at  "
    "/home/guizili/zhongruijie/frameworks.ai.pytorch.ipex-gpu/csrc/runtime/Device.cpp:116.)\n"
    "  _C._initExtension()\n"
    "No oneAPI\n"
)
"""intel/intel-extension-for-pytorch#266."""

LSPCI_REV_FF = """~/e4s$ nvidia-smi
No devices were found
(e4s) zzl@zzl-N960Kx:~/e4s$ lspci -k | grep -A 2 -E "(VGA|3D)"
00:02.0 VGA compatible controller: Intel Corporation Device 9bc5 (rev 05)
	Subsystem: CLEVO/KAPOK Computer Device 2112
	Kernel driver in use: i915
--
01:00.0 VGA compatible controller: NVIDIA Corporation Device 249d (rev ff)
	Kernel driver in use: nvidia
"""
"""e4s2022/e4s#25."""


def _rocm(text: str) -> tuple[str | None, str | None]:
    toolkits = snapshot_of(text).toolkits
    assert toolkits is not None
    assert toolkits.rocm is not None
    return toolkits.rocm.version, toolkits.rocm.path


def test_hipconfig_gives_the_rocm_release_of_its_install_directory() -> None:
    """HIP-Examples#23 was refused: hipconfig names the ROCm install, its directory the release."""
    assert _rocm(HIPCONFIG_ROCM_3_10) == ("3.10.0", "/opt/rocm-3.10.0")
    assert findings_of(HIPCONFIG_ROCM_3_10) == set()


def test_hipconfig_full_of_an_unversioned_path_takes_the_release_from_hips_version() -> None:
    """legacy-rocm-build#1518 was refused; from ROCm 3 on, HIP carries its ROCm's release (4.2.21155: 4.2)."""
    assert _rocm(HIPCONFIG_FULL_HIP_4_2) == ("4.2", "/opt/rocm")


def test_an_old_hips_version_is_no_rocm_release() -> None:
    """hip#338 was refused; HIP 1.4 shipped in ROCm 1.7, so its number is not taken as ROCm's."""
    assert _rocm(HIPCONFIG_HIP_1_4) == (None, "/opt/rocm")
    assert findings_of(HIPCONFIG_HIP_1_4) == set()


def test_a_hipconfig_release_is_judged_against_the_gpu_the_same_paste_lists() -> None:
    """hip#3521's ROCm 6.2 beside llama.cpp#20142's Vulkan listing of a gfx1151: not a 6.2 target, and
    the release is the one hipconfig printed (the layout without a space after the colon)."""
    assert _rocm(HIPCONFIG_ROCM_6_2) == ("6.2.0", "/opt/rocm-6.2.0")
    assert findings_of(HIPCONFIG_ROCM_6_2 + VULKAN_GFX1151) == {("rocm-gfx-unsupported", "warning")}
    assert findings_of(VULKAN_GFX1151) == set()  # no ROCm release in the paste: nothing to judge


def test_ggml_vulkan_lines_give_each_gpu_under_its_vendor() -> None:
    """llama.cpp#13248 (Intel iGPU) was refused; the Vulkan line names the product and its driver."""
    intel = snapshot_of(VULKAN_UHD_620).accelerators
    assert intel is not None
    assert intel.nvidia is None
    assert intel.intel is not None
    assert intel.intel.devices is not None
    assert [d.name for d in intel.intel.devices] == ["Intel(R) UHD Graphics 620 (KBL GT2)"]
    amd = snapshot_of(VULKAN_GFX1151).accelerators
    assert amd is not None
    assert amd.amd is not None
    assert amd.amd.devices is not None
    assert [(d.name, d.gfx_target) for d in amd.amd.devices] == [
        ("AMD Radeon Graphics (RADV GFX1151)", "gfx1151")
    ]
    nvidia = snapshot_of(VULKAN_RTX_3060).accelerators
    assert nvidia is not None
    assert nvidia.nvidia is not None
    assert nvidia.nvidia.devices is not None
    assert [d.name for d in nvidia.nvidia.devices] == ["NVIDIA GeForce RTX 3060"]
    old = snapshot_of(VULKAN_RX_570_OLD).accelerators
    assert old is not None
    assert old.amd is not None
    assert old.amd.devices is not None
    assert [d.name for d in old.amd.devices] == ["Radeon RX 570 Series"]


def test_the_vulkan_count_line_alone_is_no_gpu() -> None:
    assert [f for f in evidence.read("ggml_vulkan: Found 1 Vulkan devices:\n") if "gpu" in f.kind] == []


def test_xpu_smi_discovery_rows_are_intel_gpus() -> None:
    """intel/xpumanager#69 and sglang's check_env (#38873) were refused: the table's Device Name rows."""
    for text, names in (
        (XPU_SMI_FLEX_170, ["Intel(R) Data Center GPU Flex 170"]),
        (XPU_SMI_TWO, ["Intel(R) UHD Graphics 770", "Intel(R) Data Center GPU Flex 140"]),
    ):
        accelerators = snapshot_of(text).accelerators
        assert accelerators is not None
        assert accelerators.nvidia is None
        assert accelerators.intel is not None
        assert accelerators.intel.devices is not None
        assert [d.name for d in accelerators.intel.devices] == names
        assert findings_of(text) == set()


def test_ipex_seeing_no_device_is_read_and_judged_by_no_rule() -> None:
    """intel-extension-for-pytorch#266 was refused: the line says the Intel runtime sees no GPU."""
    assert kinds_of(IPEX_NO_DEVICE) == ["xpu-no-devices"]
    assert findings_of(IPEX_NO_DEVICE) == set()


def test_an_nvidia_gpu_at_rev_ff_in_lspci_is_a_lost_gpu() -> None:
    """e4s#25: 'No devices were found' alone is a host without a GPU; lspci's NVIDIA device reading 'rev
    ff' (config space all ones) says the GPU is there but off the bus."""
    assert "gpu-lost" in kinds_of(LSPCI_REV_FF)
    assert findings_of(LSPCI_REV_FF) == {("gpu-health", "error")}
    healthy = LSPCI_REV_FF.replace("Device 249d (rev ff)", "Device 249d (rev a1)")
    assert "gpu-lost" not in kinds_of(healthy)
    assert ("gpu-health", "error") not in findings_of(healthy)


def test_another_vendors_device_at_rev_ff_is_not_an_nvidia_gpu_lost() -> None:
    text = "00:02.0 VGA compatible controller: Intel Corporation Device 9bc5 (rev ff)\n"
    assert "gpu-lost" not in kinds_of(text)
