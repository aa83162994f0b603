"""Readers fixed after blind batch 11: each test is a real excerpt from the thread it names."""

from __future__ import annotations

from envsnap.importers import evidence
from tests.rules.pasted import findings_of, kinds_of, snapshot_of

SYCL_LS_CPU_ONLY = (
    "~$ sycl-ls\n"
    "[opencl:cpu][opencl:0] Intel(R) OpenCL, Intel(R) Core(TM) i7-8750H CPU @ 2.20GHz OpenCL 3.0 (Build 0) "
    "[2024.18.7.0.11_160000]\n"
)
"""leejet/stable-diffusion.cpp#330."""

SYCL_LS_A770_OPENCL = (
    "[opencl:cpu][opencl:0] Intel(R) OpenCL, Intel(R) Core(TM) i9-10900X CPU @ 3.70GHz OpenCL 3.0 (Build 0) "
    "[2024.18.6.0.02_160000]\n"
    "[opencl:gpu][opencl:1] Intel(R) OpenCL Graphics, Intel(R) Arc(TM) A770 Graphics OpenCL 3.0 NEO  "
    "[23.17.26241.33]\n"
)
"""intel/compute-runtime#764."""

SYCL_LS_A750_VERBOSE = (
    "[native_cpu:cpu][native_cpu:0] SYCL_NATIVE_CPU, SYCL Native CPU 0.1 [0.0.0]\n"
    "[opencl:cpu][opencl:0] Intel(R) OpenCL, 12th Gen Intel(R) Core(TM) i9-12900 OpenCL 3.0 (Build 0) "
    "[2024.18.10.0.08_160000]\n"
    "[opencl:gpu][opencl:1] Intel(R) OpenCL Graphics, Intel(R) Arc(TM) A750 Graphics OpenCL 3.0 NEO  "
    "[25.05.32567.17]\n"
)
"""intel/llvm#17535 (``sycl-ls --verbose``; the same Arc listed by its OpenCL backend only)."""

PROFILER_VEGA_64 = """$ system_profiler SPDisplaysDataType
Graphics/Displays:

    Radeon Pro Vega 64:

      Chipset Model: Radeon Pro Vega 64
      Type: GPU
      Bus: PCIe
      Vendor: AMD (0x1002)
      Metal: Supported, feature set macOS GPUFamily2 v1
"""
"""zeam-vm/cpu_info#17 (an Intel iMac Pro)."""

PROFILER_M3_PRO_JSON = """> system_profiler SPDisplaysDataType -json
{
  "SPDisplaysDataType" : [
    {
      "_name" : "Apple M3 Pro",
      "spdisplays_mtlgpufamilysupport" : "spdisplays_metal3",
      "spdisplays_ndrvs" : [
        {
          "_name" : "DELL U2722DE",
"""
"""timmo001/system-bridge#3408."""

PROFILER_M1_JSON = """└─[$]> /usr/sbin/system_profiler SPDisplaysDataType -json
{
  "SPDisplaysDataType" : [
    {
      "_name" : "kHW_AppleM1Item",
      "spdisplays_metalfamily" : "spdisplays_mtlgpufamilyapple7",
"""
"""exelban/stats#394 (an older macOS names the item by a key, not the chip)."""

TF_TRT_1_13 = (
    "WARNING:tensorflow:TensorRT mismatch. Compiled against version 5.0.2, but loaded 5.1.2. "
    "Things may not work.\n"
)
"""tensorflow/tensorrt#85."""

TF_TRT_LINKED_LOADED = """# Linked TRT ver: (8, 4, 3)
# Loaded TRT ver: (8, 6, 1)
"""
"""tensorflow/tensorrt#334 (a user printing TF's two ``get_*_tensorrt_version()`` calls)."""

TF_TRT_SAME = """# Linked TensorRT version: 7.1.3
# Successfully opened dynamic library libnvinfer.so.7
# Loaded TensorRT version: 7.1.3
"""
"""A TF-TRT tutorial's expected start-up lines (found with the code search): both versions agree."""

DOCKER_NO_GPU_RUNTIME = (
    'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
    "\n"
    "did I set docker up wrong?\n"
)
"""SortAnon/ControllableTalkNet#31."""


def test_sycl_ls_without_a_gpu_is_read_and_judged_by_no_rule() -> None:
    """stable-diffusion.cpp#330 was refused: sycl-ls lists only the CPU's OpenCL platform."""
    facts = evidence.read(SYCL_LS_CPU_ONLY)
    assert [(f.kind, f.value) for f in facts] == [("sycl-device", "opencl:cpu")]
    assert snapshot_of(SYCL_LS_CPU_ONLY).accelerators is None
    assert findings_of(SYCL_LS_CPU_ONLY) == set()


def test_sycl_ls_gives_its_intel_gpu_once() -> None:
    """compute-runtime#764 was refused; the Arc under OpenCL is an Intel GPU, the CPUs are not devices."""
    for text, name in (
        (SYCL_LS_A770_OPENCL, "Intel(R) Arc(TM) A770 Graphics"),
        (SYCL_LS_A750_VERBOSE, "Intel(R) Arc(TM) A750 Graphics"),
    ):
        accelerators = snapshot_of(text).accelerators
        assert accelerators is not None
        assert accelerators.nvidia is None
        assert accelerators.intel is not None
        assert accelerators.intel.devices is not None
        assert [d.name for d in accelerators.intel.devices] == [name]
        assert findings_of(text) == set()
    both = SYCL_LS_A770_OPENCL + (
        "[level_zero:gpu][level_zero:0] Intel(R) Level-Zero, Intel(R) Arc(TM) A770 Graphics 12.55.8 "
        "[1.3.29735]\n"
    )
    accelerators = snapshot_of(both).accelerators
    assert accelerators is not None
    assert accelerators.intel is not None
    assert accelerators.intel.devices is not None
    assert len(accelerators.intel.devices) == 1


def test_sycl_ls_of_the_cuda_backend_gives_the_nvidia_gpu_and_its_capability() -> None:
    line = "[cuda:gpu][cuda:0] NVIDIA CUDA BACKEND, NVIDIA GeForce RTX 3090 8.6 [CUDA 12.2]\n"
    facts = [(f.kind, f.value, f.detail) for f in evidence.read(line) if f.kind == "gpu"]
    assert facts == [("gpu", "NVIDIA GeForce RTX 3090", "8.6")]


def test_system_profiler_gives_the_macs_metal_gpu() -> None:
    """cpu_info#17 and system-bridge#3408 were refused: the GPU's model with its Metal support."""
    apple = snapshot_of(PROFILER_M3_PRO_JSON).accelerators
    assert apple is not None
    assert apple.mps is not None
    assert apple.mps.chip == "Apple M3 Pro"
    assert apple.amd is None
    radeon = snapshot_of(PROFILER_VEGA_64).accelerators
    assert radeon is not None
    assert radeon.mps is not None
    assert radeon.mps.chip is None  # an Intel Mac's Radeon is not the chip
    assert radeon.amd is None  # no ROCm on macOS: not an AMD device the ROCm rules judge
    for text in (PROFILER_M3_PRO_JSON, PROFILER_VEGA_64, PROFILER_M1_JSON):
        assert findings_of(text) == set()


def test_a_displays_name_is_not_the_gpu() -> None:
    """Only the ``_name`` right before a Metal key is the GPU; a display's name is not."""
    facts = evidence.read(PROFILER_M3_PRO_JSON)
    assert [f.value for f in facts if f.kind == "mac-gpu"] == ["Apple M3 Pro"]


def test_metal_support_alone_is_no_mac_gpu() -> None:
    text = "Metal Support: Metal 3\n"
    assert snapshot_of(text).accelerators is None


def test_tensorflows_tensorrt_mismatch_is_read_and_judged_by_no_rule() -> None:
    """tensorflow/tensorrt#334 was refused; #85's warning was read only through its template."""
    assert kinds_of(TF_TRT_1_13) == ["tensorrt-version-mismatch"]
    assert kinds_of(TF_TRT_LINKED_LOADED) == ["tensorrt-version-mismatch"]
    assert findings_of(TF_TRT_LINKED_LOADED) == set()
    assert kinds_of(TF_TRT_SAME) == []  # the same version linked and loaded is no mismatch


def test_dockers_missing_gpu_runtime_is_read_and_judged_by_no_rule() -> None:
    """ControllableTalkNet#31, dcgm-exporter#33 and ElasticFusion-Dockerfile#11 were refused."""
    assert kinds_of(DOCKER_NO_GPU_RUNTIME) == ["docker-gpu-runtime-missing"]
    assert findings_of(DOCKER_NO_GPU_RUNTIME) == set()
    assert kinds_of('could not select device driver "" with capabilities: [[compute]]') == []


GGML_SYCL_LIST = (
    "found 4 SYCL devices:\n"
    "  Device 0: Intel(R) Arc(TM) A770 Graphics,     compute capability 1.3,\n"
    "        max compute_units 512,  max work group size 1024,       max sub group size 32,  gl"
    "obal mem size 16225243136\n"
    "  Device 1: Intel(R) FPGA Emulation Device,     compute capability 1.2,\n"
    "        max compute_units 12,   max work group size 67108864,   max sub group size 64,  gl"
    "obal mem size 33536741376\n"
    "  Device 2: Intel(R) Arc(TM) A770 Graphics,     compute capability 3.0,\n"
    "        max compute_units 512,  max work group size 1024,       max sub group size 32,  gl"
    "obal mem size 16225243136\n"
    "  Device 3: AMD Ryzen 5 5600X3D 6-Core Processor           ,    compute capability 3.0,\n"
    "Using device 0 (Intel(R) Arc(TM) A770 Graphics) as main device\n"
)
"""ollama/ollama#2458 (llama.cpp's SYCL backend before 2024)."""

GGML_SYCL_TABLE = (
    "found 1 SYCL devices:\n"
    "|  |                  |                                             |Compute   |Max comput"
    "e|Max work|Max sub|               |\n"
    "|ID|       Device Type|                                         Name|capability|units     "
    " |group   |group  |Global mem size|\n"
    "|--|------------------|---------------------------------------------|----------|----------"
    "-|--------|-------|---------------|\n"
    "| 0|[level_zero:gpu:0]|               Intel(R) Arc(TM) A770 Graphics|       1.3|        51"
    "2|    1024|     32|    16225243136|\n"
)
"""ggml-org/llama.cpp#6036 (the table since 2024)."""

MPS_PRINTED = """>>> print("torch.backends.mps:", torch.backends.mps.is_available())
torch.backends.mps: True
"""
"""microsoft/OmniParser#195."""

MPS_REPL = """$ python
>>> torch.backends.mps.is_available()
True
"""
"""spack/spack#31283 (an Apple M1 Pro on macOS 12.4)."""

APPLE_GPU_INFO = """GPU name: Apple M1
GPU vendor: Apple
GPU core count: 8
GPU family: Apple 7
"""
"""philipturner/applegpuinfo#11."""


def _intel_names(text: str) -> list[str | None]:
    accelerators = snapshot_of(text).accelerators
    assert accelerators is not None
    assert accelerators.nvidia is None
    assert accelerators.amd is None
    assert accelerators.intel is not None
    assert accelerators.intel.devices is not None
    return [d.name for d in accelerators.intel.devices]


def test_ggmls_sycl_device_list_and_table_give_the_intel_gpu_not_the_cpus() -> None:
    """ollama#2458 was refused: the old list names GPUs, an FPGA emulator and a CPU alike, and its
    'compute capability' is the backend's version (no NVIDIA GPU is made of it)."""
    assert _intel_names(GGML_SYCL_LIST) == ["Intel(R) Arc(TM) A770 Graphics"]
    assert _intel_names(GGML_SYCL_TABLE) == ["Intel(R) Arc(TM) A770 Graphics"]
    assert findings_of(GGML_SYCL_LIST) == set()


def test_torchs_mps_answer_is_the_macs_mps_not_cuda() -> None:
    """OmniParser#195 was refused; the REPL's bare True after ``mps.is_available()`` is MPS's, not CUDA's."""
    for text in (MPS_PRINTED, MPS_REPL):
        accelerators = snapshot_of(text).accelerators
        assert accelerators is not None
        assert accelerators.mps is not None
        assert accelerators.mps.available is True
        assert [f for f in evidence.read(text) if f.kind == "cuda-available"] == []
        assert findings_of(text) == set()


def test_an_apple_silicon_gpu_name_is_the_macs_metal_gpu() -> None:
    """applegpuinfo#11 was refused: an Apple M-series GPU always runs Metal."""
    accelerators = snapshot_of(APPLE_GPU_INFO).accelerators
    assert accelerators is not None
    assert accelerators.mps is not None
    assert accelerators.mps.chip == "Apple M1"
    assert accelerators.nvidia is None
    assert findings_of(APPLE_GPU_INFO) == set()
