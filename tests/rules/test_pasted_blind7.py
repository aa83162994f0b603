"""Readers and rules fixed after blind batch 7: each test is a real excerpt from the thread it names."""

from __future__ import annotations

from envsnap.importers import amd_smi
from tests.rules.pasted import findings_of, kinds_of


def test_nvidia_smi_without_a_device_handle_is_a_lost_gpu() -> None:
    """pdbear/syno_nvidia_gpu_driver#22 (Tesla P4 overheating) and NVIDIA/nvidia-docker#1553 (a failed GPU):
    NVML cannot reach the device, nvidia-smi prints this instead of its table; the paste was refused."""
    for text in (
        "$ nvidia-smi\nUnable to determine the device handle for GPU0000:07:00.0: Unknown Error\n",
        "`nvidia-smi -a -i 0`\nUnable to determine the device handle for GPU 0000:09:00.0: Unknown Error\n",
    ):
        assert kinds_of(text) == ["gpu-lost"]
        assert findings_of(text) == {("gpu-health", "error")}


def test_a_gpu_the_driver_never_initialised_is_lost() -> None:
    """NVIDIA/open-gpu-kernel-modules#862: 'No devices were found' and the kernel's RmInitAdapter line
    (fixed by Above 4G decoding / Resizable BAR in the BIOS)."""
    text = (
        "# nvidia-smi\nNo devices were found\n\n# meanwhile, output in /var/log/syslog\n"
        "Jul 01 22:55:07 gpu kernel: NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:884)\n"
    )
    assert findings_of(text) == {("gpu-health", "error")}


def test_a_device_handle_in_prose_without_a_bus_id_is_not_a_lost_gpu() -> None:
    """The words alone (a question about the message) are no device answer: the bus id must be there."""
    assert "gpu-lost" not in kinds_of("How do I monitor 'Unable to determine the device handle' errors?\n")


def test_the_container_toolkit_without_nvml_is_no_driver() -> None:
    """NVIDIA/libnvidia-container#231: the hook cannot load libnvidia-ml, which ships with the driver."""
    text = (
        "nvidia-container-cli list\n"
        "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: "
        "cannot open shared object file: no such file or directory\n"
    )
    assert kinds_of(text) == ["no-nvidia-driver"]
    assert findings_of(text) == {("nvidia-driver-not-found", "error")}


VLLM_PROBE = (
    "DEBUG 04-11 02:27:35 [__init__.py:52] Checking if CUDA platform is available.\n"
    "DEBUG 04-11 02:27:35 [__init__.py:76] Exception happens when checking CUDA platform: "
    "NVML Shared Library Not Found\n"
)


def test_vllm_on_its_cpu_platform_expects_no_nvidia_driver() -> None:
    """vllm-project/vllm#16446: the official CPU image probes CUDA first; NVML missing there is expected."""
    cpu = (
        "WARNING 04-11 02:27:30 [_logger.py:72] device type=cpu is not supported by the V1 Engine. "
        "Falling back to V0. \n" + VLLM_PROBE
    )
    assert "vllm-cpu-platform" in kinds_of(cpu)
    assert ("nvidia-driver-not-found", "error") not in findings_of(cpu)
    # the same probe without the CPU platform chosen still says the driver is missing
    assert findings_of(VLLM_PROBE) == {("nvidia-driver-not-found", "error")}


def test_rocm_smi_tables_before_vram_column_are_read() -> None:
    """ROCm/rocm_smi_lib#35 (ROCm 2.4) and ROCm/ROC-smi#47 (ROC-smi 2.0, quoted): the default table before
    VRAM% existed; both pastes were refused."""
    rocm24 = (
        "GPU  Temp   AvgPwr  SCLK    MCLK    Fan     Perf  PwrCap  SCLK OD  MCLK OD  GPU%  \n"
        "0    31.0c  N/A     852Mhz  167Mhz  28.63%  auto  N/A     0%       0%       N/A   \n"
        "1    26.0c  N/A     852Mhz  167Mhz  27.84%  auto  N/A     0%       0%       N/A   \n"
        "================================================================================\n"
    )
    sections = amd_smi.parse_rocm_smi_concise(rocm24.splitlines())
    assert sections is not None
    assert sections.accelerators is not None
    amd = sections.accelerators.amd
    assert amd is not None
    assert [d.index for d in amd.devices or ()] == [0, 1]
    quoted = (
        "> GPU   Temp   AvgPwr   SCLK    MCLK    PCLK           Fan     Perf    PwrCap   SCLK OD   "
        "MCLK OD  GPU%\n"
        "0     48c    N/A      1114Mhz 2100Mhz 5.0GB, x16     60.78%  manual  N/A      0%        0%       "
        "N/A\n"
    )
    assert amd_smi.ROCM_SMI_CONCISE.search(quoted)
    assert findings_of(rocm24) == set()
    assert findings_of(quoted) == set()


def test_a_table_naming_sclk_alone_is_not_rocm_smi() -> None:
    """A header needs SCLK followed by MCLK (rocm-smi's column order), not any line starting with GPU."""
    assert not amd_smi.ROCM_SMI_CONCISE.search("GPU clock (SCLK) was 852Mhz\n")


ROCMINFO = (
    "  Name:                    gfx942                             \n"
    "  Uuid:                    GPU-8af705259683161c               \n"
    "  Marketing Name:          AMD Instinct MI300X                \n"
    "  Vendor Name:             AMD                                \n"
    "  Device Type:             GPU                                \n"
    "  ISA Info:                \n"
    "    ISA 1                    \n"
    "      Name:                    amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-\n"
)


def test_a_rocminfo_agent_block_names_the_gpu_and_its_target() -> None:
    """ROCm/legacy-rocm-build#4414 (MI300X SCLK stuck): a rocminfo agent block was refused; the ISA line
    below it repeats the target and is no second GPU."""
    sections = amd_smi.parse_rocminfo(ROCMINFO.splitlines())
    assert sections is not None
    assert sections.accelerators is not None
    amd = sections.accelerators.amd
    assert amd is not None
    assert [(d.name, d.gfx_target) for d in amd.devices or ()] == [("AMD Instinct MI300X", "gfx942")]
    assert findings_of(ROCMINFO) == set()


def test_a_rocminfo_cpu_agent_is_no_gpu() -> None:
    """rocminfo lists the CPU as an agent too (ROCm/legacy-rocm-build#3470's paste)."""
    cpu = "  Name:                    CPU\n  Marketing Name:          CPU\n  Device Type:             CPU\n"
    assert amd_smi.parse_rocminfo(cpu.splitlines()) is None


def test_lines_judged_by_no_rule_make_a_paste_readable() -> None:
    """beasteers/singuconda#6, dusty-nv/jetson-inference#426 and lllyasviel/stable-diffusion-webui-forge#2798:
    each paste was refused; each line states a fact without a mismatch to report."""
    cases = {
        "Detected gpus, using --nv:\nNo devices were found  \n": "nvidia-smi-no-devices",
        "It displays the message 'the engine plan file is not compatible with this version of tensorRT, "
        "expecting library version 5.1.6 got 5.0.6'.\n": "tensorrt-engine-version",
        "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!\n": (
            "cudnn-dll-missing"
        ),
    }
    for text, kind in cases.items():
        assert kinds_of(text) == [kind]
        assert findings_of(text) == set()
