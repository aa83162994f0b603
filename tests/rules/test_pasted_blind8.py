"""Readers and rules fixed after blind batch 8: each test is a real excerpt from the thread it names."""

from __future__ import annotations

import pytest

from envsnap.errors import BadInput
from envsnap.rules import evaluate
from envsnap.snapshot.finalize import finalize
from tests.rules.pasted import findings_of, kinds_of, snapshot_of

IPEX_COLLECT_ENV = """Collecting environment information...
PyTorch version: 2.0.1a0+cxx11.abi
PyTorch CXX11 ABI: Yes
IPEX version: 2.0.110+xpu
IPEX commit: ba7f6c127
Build type: Release

OS: Ubuntu 22.04.3 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Clang version: N/A
IGC version: 2023.2.0 (2023.2.0.20230721)
CMake version: N/A
Libc version: glibc-2.35

Python version: 3.8.17 | packaged by conda-forge | (default, Jun 16 2023, 07:06:00)  [GCC 11.4.0] \
(64-bit runtime)
Python platform: Linux-6.3.13-060313-generic-x86_64-with-glibc2.10
Is XPU available: True
DPCPP runtime version: 2023.2.1
MKL version: 2023.2.0
GPU models and configuration: 
[0] _DeviceProperties(name='Intel(R) Arc(TM) A770 Graphics', platform_name='Intel(R) Level-Zero', \
dev_type='gpu, support_fp64=0, total_memory=15473MB, max_compute_units=512, gpu_eu_count=512)
Intel OpenCL ICD version: 23.17.26241.33-647~22.04
Level Zero version: 1.3.26241.33-647~22.04
"""


def test_ipex_collect_env_lists_intel_gpus_not_nvidia_ones() -> None:
    """intel/intel-extension-for-pytorch#400: IPEX's collect_env prints torch.xpu's device properties;
    they were read as NVIDIA GPUs next to a torch without CUDA (a false 'CPU-only build on a GPU host')."""
    snapshot = snapshot_of(IPEX_COLLECT_ENV)
    assert snapshot.accelerators is not None
    assert snapshot.accelerators.nvidia is None
    intel = snapshot.accelerators.intel
    assert intel is not None
    assert intel.devices is not None
    assert [d.name for d in intel.devices] == ["Intel(R) Arc(TM) A770 Graphics"]
    assert findings_of(IPEX_COLLECT_ENV) == set()


def test_ipex_lines_after_the_gpu_block_are_labels_not_gpus() -> None:
    """intel/intel-extension-for-pytorch#597: two devices, then 'Intel OpenCL ICD version' and 'Level Zero
    version', which used to be swallowed into the GPU list as more devices."""
    text = IPEX_COLLECT_ENV.replace(
        "Intel OpenCL ICD version",
        "[1] _DeviceProperties(name='Intel(R) UHD Graphics 770', platform_name='Intel(R) Level-Zero', "
        "dev_type='gpu, support_fp64=0, total_memory=29494MB, max_compute_units=32, gpu_eu_count=32)\n"
        "Intel OpenCL ICD version",
    )
    intel = snapshot_of(text).accelerators.intel  # type: ignore[union-attr]
    assert intel is not None
    assert intel.devices is not None
    assert [(d.index, d.name) for d in intel.devices] == [
        (0, "Intel(R) Arc(TM) A770 Graphics"),
        (1, "Intel(R) UHD Graphics 770"),
    ]


def test_a_cuda_build_with_an_nvidia_gpu_line_is_still_nvidia() -> None:
    """The Intel reading must not take NVIDIA lines: collect_env's 'GPU 0: NVIDIA ...' stays an NVIDIA GPU."""
    text = (
        "PyTorch version: 2.2.2+cpu\nIs debug build: False\nCUDA used to build PyTorch: None\n"
        "OS: Ubuntu 22.04\nIs CUDA available: False\n"
        "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090\nNvidia driver version: 550.54.14\n"
    )
    assert ("cpu-only-build-on-gpu-host", "error") in findings_of(text)


def test_jax_plugin_from_another_release_than_jaxlib() -> None:
    """ma-gilles/recovar#64: jaxlib's own RuntimeWarning names both versions; JAX then ignores the
    plugin."""
    text = (
        "The JAX startup warning is:\n```\n"
        "RuntimeWarning: JAX plugin jax_cuda12_plugin version 0.9.2 is installed, \n"
        "but it is not compatible with the installed jaxlib version 0.9.0.1\n```\n"
    )
    assert kinds_of(text) == ["jax-plugin-incompatible"]
    assert findings_of(text) == {("jax-plugin-version-mismatch", "error")}


def test_jax_plugin_mismatch_shown_by_the_package_list_is_said_once() -> None:
    """When pip's list shows the versions the regular check names them; the printed line adds nothing."""
    text = (
        "Package            Version\n------------------ -------\njax                0.9.0.1\n"
        "jaxlib             0.9.0.1\njax-cuda12-plugin  0.9.2\njax-cuda12-pjrt    0.9.2\n\n"
        "RuntimeWarning: JAX plugin jax_cuda12_plugin version 0.9.2 is installed, but it is not compatible "
        "with the installed jaxlib version 0.9.0.1, so it will not be used.\n"
    )
    found = [f for f in evaluate(finalize(snapshot_of(text))) if f.id == "jax-plugin-version-mismatch"]
    assert len(found) == 1
    assert "0.9.2" in found[0].title
    assert "meta.origin" not in str(found[0].evidence)


NCCL_INFO = (
    "instance-8g-96c-4:101707:101707 [0] NCCL INFO Bootstrap : Using ens7:10.128.0.33<0>\n"
    "instance-8g-96c-4:101707:101707 [0] NCCL INFO cudaDriverVersion 12000\n"
    "NCCL version 2.19.3+cuda12.3\n"
    "instance-8g-96c-4:101707:101889 [0] NCCL INFO NET/IB : No device found.\n"
)


def test_nccl_debug_lines_alone_are_read_and_name_the_driver_cuda() -> None:
    """NVIDIA/nccl#1267 and sgl-project/sglang#4289: NCCL_DEBUG=INFO output alone was refused (exit 2);
    its cudaDriverVersion is the driver's CUDA API version (12000 = CUDA 12.0), like torch's
    'found version'."""
    assert kinds_of(NCCL_INFO) == ["nccl-debug"]
    nvidia = snapshot_of(NCCL_INFO).accelerators.nvidia  # type: ignore[union-attr]
    assert nvidia is not None
    assert nvidia.cuda_driver_version == "12.0"  # evidence.py's NCCL reader
    alone = NCCL_INFO.replace("cudaDriverVersion 12000", "Using non-device net plugin version 0")
    assert kinds_of(alone) == ["nccl-debug"]  # without the driver line it was refused before
    assert findings_of(alone) == set()  # read (parse_auto raised BadInput before), nothing to flag
    assert findings_of(NCCL_INFO) == set()  # a CUDA 12.3 NCCL on a 12.0 driver: minor-version compatibility


def test_old_nccl_warn_lines_without_the_nccl_word_are_read() -> None:
    """NVIDIA/nccl-tests#14 (NCCL 2.2): 'file.cu:line WARN' without 'NCCL'; a container networking
    problem, nothing for envsnap to flag, but the paste is read."""
    text = (
        "e66aa18dc444:3171:3171 [0] misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]\n"
        "e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : Address family not "
        "supported by protocol\n"
    )
    assert kinds_of(text) == ["nccl-debug"]
    assert findings_of(text) == set()


def test_prose_about_warnings_is_not_an_nccl_line() -> None:
    assert "nccl-debug" not in kinds_of("I get a WARN from NCCL sometimes, and NCCL INFO says nothing.\n")


def test_a_rocminfo_agent_pasted_from_below_its_name_is_read() -> None:
    """ROCm/rocm_smi_lib#160: an MI250X agent copied from 'Uuid:' on (no 'Name: gfx90a' line) was refused."""
    text = (
        "  Uuid:                    GPU-cf1182f2988c0a4c\n"
        "  Marketing Name:          AMD Instinct MI250X/MI250\n"
        "  Vendor Name:             AMD\n"
        "  Device Type:             GPU\n"
        "  Compute Unit:            104\n"
    )
    amd = snapshot_of(text).accelerators.amd  # type: ignore[union-attr]
    assert amd is not None
    assert amd.devices is not None
    assert [(d.name, d.gfx_target) for d in amd.devices] == [("AMD Instinct MI250X/MI250", None)]
    assert findings_of(text) == set()


def test_a_rocminfo_isa_line_gives_the_agent_its_target() -> None:
    """ROCm/ROCm#5259 style: the paste starts inside the agent; its ISA line repeats the gfx target."""
    text = (
        "  Marketing Name:          AMD Instinct MI300X\n"
        "  Device Type:             GPU\n"
        "  ISA Info:\n    ISA 1\n"
        "      Name:                    amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-\n"
    )
    amd = snapshot_of(text).accelerators.amd  # type: ignore[union-attr]
    assert amd is not None
    assert amd.devices is not None
    assert [(d.name, d.gfx_target) for d in amd.devices] == [("AMD Instinct MI300X", "gfx942")]


def test_a_rocminfo_cpu_agent_pasted_alone_is_no_gpu() -> None:
    """A CPU agent (Device Type: CPU) is not a GPU: the paste holds no fact envsnap reads (refused)."""
    text = "  Marketing Name:          AMD EPYC 7763\n  Device Type:             CPU\n"
    with pytest.raises(BadInput):
        snapshot_of(text)


def test_the_mps_op_fallback_warning_is_read_as_evidence() -> None:
    """mrdbourke/pytorch-deep-learning#356 (M2 Max): an op without an MPS kernel ran on the CPU; the forum
    turned the quotes typographic. Slow, not broken: read (not refused), no finding."""
    text = (
        "UserWarning: The operator \u2018aten::nonzero\u2019 is not currently supported on the MPS "
        "backend and will fall back to run on the CPU. This may have performance implications.\n"
    )
    assert kinds_of(text) == ["mps-op-fallback"]
    assert findings_of(text) == set()
