"""Facts read line by line from any paste: what a report says, wherever it says it.

Whole formats (collect_env, nvidia-smi, pip list, ...) are parsed by their own importers; most of what
people paste is none of them: a ComfyUI or SD.Next start-up log, ``sglang.check_env``, ``ds_report``,
``pip show torch``, an issue template's ``- **PyTorch Version:** 2.7.1+cu128``, a resolver conflict.
Here every line (log prefixes stripped, see log_prefix.py; clipped to ``MAX_LINE`` characters) goes
through small patterns, each anchored or guarded by a literal keyword, none with nested repetition,
so a paste costs time linear in its size. Each match is a ``Fact`` with its 1-based line number.

Facts only fill what the structural parsers left unknown (auto.py merges them last). A fact is taken
as far as the text pins it down and no further: ``PyTorch 1.9.0`` in a sentence is a version, not a
build (a bare version says nothing about CUDA, so it never becomes a CPU-only torch); ``CUDA 12.2``
with no label could be the driver's, the toolkit's or torch's, so it is recorded as said and used
by no rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from envsnap.importers import log_prefix, markup_lines

AMD_UNNAMED = "AMD GPU"
"""The name of an AMD GPU a paste gives only by its gfx target."""
MAX_LINE = 4096
"""Characters of a line that are read: no fact needs more, and it bounds the work per line."""


@dataclass(frozen=True)
class Fact:
    """One thing a line of the paste states."""

    kind: str
    value: str
    line: int
    detail: str = ""
    """A second value where the fact has one (a GPU's compute capability, a package's name)."""


# --- normalising a line ------------------------------------------------------------------------

_MARKUP = re.compile(r"^(?:[-*+>] |#{1,6} |\d{1,3}[.)] |\*\* ?)+")
_SPACE_RUN = re.compile(r"[ \t]{3,}")
_KV = re.compile(
    r"^(?P<key>[A-Za-z][A-Za-z0-9 _()/.,+-]{0,60}?) ?(?:[:：=]|\.{3,}| {2,}|\t)[ \t.]*[:：=]?[ \t]*"
    r"(?P<value>\S.{0,600})$"
)
_VERSION = (
    r"\d{1,4}\.\d{1,4}(?:\.\d{1,6})?(?:(?:a|b|rc|dev|post)\d{0,12}|\.(?:dev|post)\d{0,12})*(?:\+[\w.]{1,40})?"
)
_VERSION_AT = re.compile(r"v?(?P<v>" + _VERSION + r")")


def normalise(line: str) -> str:
    """A line with log prefixes, Markdown bullets/quotes/bold and long blank runs taken out; a JSON
    member or XML leaf element (HTML-escaped or not) as ``key: value`` (markup_lines.py)."""
    line = markup_lines.unescape(log_prefix.strip(line[:MAX_LINE]).strip())
    line = markup_lines.as_key_value(line) or line
    line = _MARKUP.sub("", line).replace("**", "").replace("`", "")
    return _SPACE_RUN.sub("   ", line).strip()


# --- the line patterns ---------------------------------------------------------------------------

_TORCH_KEYS = frozenset({"pytorch version", "pytorch", "torch", "torch version", "pytorch ver"})
_TORCH_CUDA_KEYS = frozenset({"cuda used to build pytorch", "torch cuda version", "cuda compiled version"})
_AVAILABLE_KEYS = frozenset(
    {
        "is cuda available",
        "cuda available",
        "gpu available",
        "is cuda available (pytorch)",
        "cuda is available",
    }
)
_DRIVER_KEYS = frozenset(
    {
        "nvidia driver version",
        "nvidia driver",
        "driver version",
        "cuda driver version",
        "driver",
        "gpu driver",
    }
)
_NVCC_KEYS = frozenset({"nvcc", "nvcc version", "cuda compiler", "cuda toolkit", "cuda toolkit version"})
_CUDA_KEYS = frozenset({"cuda", "cuda version", "cuda runtime"})
_PYTHON_KEYS = frozenset({"python", "python version", "python ver"})
_OS_KEYS = frozenset(
    {
        "os",
        "operating system",
        "platform",
        "system",
        "os platform and distribution",
        # /etc/os-release and /etc/lsb-release, pasted with `cat`: PRETTY_NAME="Ubuntu 22.04.3 LTS"
        "pretty_name",
        "distrib_description",
    }
)
_GPU_KEYS = frozenset(
    {
        "gpu",
        "gpus",
        "gpu model",
        "gpu models and configuration",
        "device",
        "device name",
        "name",
        "graphics",
        "gpu model and memory",
        "torch detected gpu",
        "gpu name",
        "video card",
        # collect_env's own field names (A1111's sysinfo JSON), nvidia-smi -q -x's element
        "nvidia gpu models",
        "product name",
    }
)
_CC_KEY = re.compile(r"^(?:gpu [\d,]{1,40} )?compute capability$")
_GPU_INDEX_KEY = re.compile(r"^gpu [\d,]{1,40}$")

KNOWN_PACKAGES = frozenset(
    {
        "torch",
        "torchvision",
        "torchaudio",
        "xformers",
        "flash-attn",
        "flash_attn",
        "flashinfer",
        "flashinfer-python",
        "flashinfer_python",
        "vllm",
        "triton",
        "transformers",
        "numpy",
        "jax",
        "jaxlib",
        "deepspeed",
        "sglang",
        "sgl_kernel",
        "sgl-kernel",
        "bitsandbytes",
        "onnxruntime",
        "onnxruntime-gpu",
        "detectron2",
        "torchao",
        "cupy",
        "accelerate",
        "diffusers",
        "tensorflow",
        "mmcv",
        "mmcv-full",
        "mmdet",
        "peft",
        "protobuf",
        "opencv-python",
        "safetensors",
        "tensorrt",
    }
)
"""Names read as packages from ``name: version`` / ``name  version`` lines (check_env, prose, ComfyUI)."""

_PKG_KEY_SUFFIX = re.compile(r" version$")

# Lines without a key: each needs the literal it is guarded by (checked with ``in``, cheap).
_LOCAL_TAG = r"(?:cu\d{2,3}|cpu|rocm\d[\d.]{0,8}|xpu)"
_TORCH_INLINE = re.compile(
    r"^(?:py)?torch(?: version)?[ :=]{1,3}v?(?P<v>" + _VERSION + r")"
    r"(?: \+ (?P<local>" + _LOCAL_TAG + r"))?(?:[\s;,)]|$)",
    re.I,
)
"""``torch 2.1.0``, ``PyTorch: 2.8.0+cu129``, and the build tag written apart, ``PyTorch 2.8.0 + cu129``."""
_TORCH_BUILD_SAID = re.compile(
    r"\b(?:py)?torch version:? v?(?P<v>\d{1,4}\.\d{1,4}(?:\.\d{1,6})?\+" + _LOCAL_TAG + r")(?![\w.])", re.I
)
"""Mid-sentence, a torch version only with its build tag ("... shows PyTorch Version: 2.7.1+cu126"): a
bare version in a sentence says nothing about the build (module docstring)."""
_YOLO_BANNER = re.compile(
    r"\bPython-(?P<python>\d\.\d{1,2}(?:\.\d{1,3})?) "
    r"torch-(?P<v>\d{1,4}\.\d{1,4}(?:\.\d{1,6})?(?:[ab]\d{1,3})?(?:\+[\w.]{1,40})?)(?![\w.+-])"
    r"(?: CUDA:\d{1,2} \((?P<gpu>[^,()]{2,80}), \d{1,7}MiB\))?"
)
"""Ultralytics' (YOLOv5/YOLOv8/YOLO11) device banner, ``Ultralytics 8.3.17 🚀 Python-3.10.12 torch-2.4.1+cu121
CUDA:0 (Tesla T4, 15102MiB)`` (or ``CPU (Intel Xeon ...)``): its select_device() prints the torch version
glued to ``torch-`` and the first CUDA device torch opened."""
_PYTHON_INLINE = re.compile(r"^Python (?P<v>\d\.\d{1,2}(?:\.\d{1,3})?)(?:[\s;,]|$)")
_PACKAGE_FOUND = re.compile(r"^Package version found: (?P<name>[\w.-]{1,60}) (?P<v>\S{1,60})$")
_ALIGNED_PKG = re.compile(r"^(?P<name>[A-Za-z][\w.-]{0,60}) {1,40}(?P<v>" + _VERSION + r")(?: .*)?$")
_INSTALLED = re.compile(r"Successfully installed (?P<list>.{1,4000})")
_INSTALLED_ITEM = re.compile(r"^(?P<name>[A-Za-z0-9][\w.]*(?:-[A-Za-z][\w.]*)*)-(?P<v>\d[\w.+!]*)$")
_SATISFIED = re.compile(
    r"^Requirement already satisfied: (?P<name>[\w.-]{1,80}) in .{1,600}? \((?P<v>\d[^)\s]{0,60})\)$"
)
# A wheel's file name, in a URL or alone ("I installed :torch-1.9.0+cu111-cp37-cp37m-win_amd64.whl &
# torchvision-0.9.1+cu111-..."): not preceded by a name character ("pytorch-1.9.0", "libtorch-" are not it).
_WHEEL = re.compile(
    r"(?<![\w.+-])(?P<name>torch|torchvision|torchaudio|xformers)-(?P<v>\d{1,3}\.\d{1,3}(?:\.\d{1,3})?)"
    r"(?:(?:%2B|\+)(?P<local>[\w.]{1,30}))?-cp\d"
)
_RESOLVER = re.compile(
    r"(?P<pkg>[A-Za-z][\w.-]{0,60}) (?P<ver>\d[^\s,]{0,60}) (?:requires|has requirement) "
    r"(?P<dep>[A-Za-z][\w.-]{0,60})(?P<spec>[=<>!~][^,\s]{0,60}),? but you(?:'ll)? have "
    r"(?P<dep2>[A-Za-z][\w.-]{0,60}) (?P<have>\d[^\s,]{0,60}) which is incompatible"
)
_DEVICE_CUDA = re.compile(r"^cuda:(?P<i>\d{1,2}) (?P<name>.{2,80}?)(?: : [\w-]{1,30})?$")
_LLAMA_DEVICE = re.compile(
    r"^Device (?P<i>\d{1,2}): (?P<name>.{2,80}?), compute capability (?P<cc>\d{1,2}\.\d)"
    r"(?:, VMM: (?:yes|no))?(?:, ID: [\w:.-]{1,40})?$"
)
"""ggml's CUDA device line; since 2024 it ends with ``, VMM: yes`` (virtual memory management), and
later builds add ``, ID: <pci bus id>``."""
_PADDLE_DEVICE = re.compile(
    r"device: (?P<i>\d{1,2}), (?:GPU Compute |CUDA )?Capability: (?P<cc>\d{1,2}(?:\.\d)?), "
    r"Driver API Version: (?P<driver>\d{1,2}\.\d{1,2}), Runtime API Version: (?P<runtime>\d{1,2}\.\d{1,2})"
)
"""PaddlePaddle's device_context note: the GPU's capability (``6.1``; Paddle 1.x printed ``70``), the
CUDA version the driver supports and the one Paddle's runtime is."""
_NCCL_DRIVER = re.compile(r"\bNCCL INFO cudaDriverVersion (?P<api>\d{4,5})\b")
_NCCL_VERSION = re.compile(
    r"\bNCCL version (?P<v>\d{1,2}\.\d{1,3}\.\d{1,3})(?:\+cuda(?P<cuda>\d{1,2}\.\d{1,2}))?"
)
"""NCCL's debug log (``NCCL_DEBUG=INFO``) and torch's NCCL errors: the CUDA driver API version the driver
reports (``12080`` = CUDA 12.8, what nvidia-smi's header says), and NCCL's release with the CUDA it was
built for (``2.14.3+cuda11.8``; torch's bundled NCCL, or a system one: recorded, used by no rule)."""
_TORCH_CONFIG_CUDA = re.compile(r"^CUDA Runtime (?P<v>\d{1,2}\.\d{1,2})$")
_TORCH_CONFIG_ARCH = re.compile(r"arch=compute_\d{2,3}a?,code=(?P<arch>(?:sm|compute)_\d{2,3}a?)")
"""``torch.__config__.show()`` ("PyTorch built with:", in detectron2's and mmdet's environment reports):
torch's own CUDA runtime and its ``-gencode`` list: the kernels (``sm_XX``) and the PTX (``compute_XX``)
it ships."""
_CUDA_HOME_VERSION = re.compile(r"(?:[/\\]cuda-|[/\\]CUDA[/\\]v)(?P<v>\d{1,2}\.\d{1,2})(?:[/\\]|$)", re.I)
"""A CUDA_HOME that names its toolkit's version: ``/usr/local/cuda-11.6``, ``...\\CUDA\\v11.6``."""
_OLLAMA_GPU = re.compile(r'\bcompute=(?P<cc>\d{1,2}\.\d)\b.{0,200}?\bname="(?P<name>[^"]{2,80})"')
_OLLAMA_DRIVER = re.compile(r"\bdriver=(?P<v>\d{1,2}\.\d)\b")
_LIBCUDA = re.compile(r"libcuda\.so\.(?P<v>\d{3}\.\d{1,3}(?:\.\d{1,3})?)")
_ARCH_TUPLE = re.compile(r"\bArch \((?P<major>\d{1,2}), (?P<minor>\d)\)")
_ARCH_EQ = re.compile(r"\(arch=(?P<cc>\d{1,2}\.\d)\)")
_CC_INLINE = re.compile(r"(?:^|\] )Compute Capability (?P<cc>\d{1,2}\.\d)$")
_CRYSTOOLS_GPU = re.compile(r"^\d{1,2}\) (?P<name>(?:NVIDIA|GeForce|Tesla|Quadro)\b.{2,80})$")
_GPU_NAME = re.compile(
    r"(?P<name>(?:NVIDIA\s)?(?:GeForce\s|Tesla\s|Quadro\s|TITAN\s)?"
    r"(?:RTX\s?PRO\s\d{4}|RTX\s?A?\d{3,4}|GTX\s?\d{3,4}|GT\s\d{3,4}|GeForce\s\d{3,4}|TITAN\s(?:RTX|V|Xp?)|"
    r"[ABHLTVPK]\d{1,3}(?:[A-Z]{1,3}\b|\b)|GH200|L40S?)"
    r"(?:\s?(?:Ti|SUPER|Super|D|Laptop GPU|Max-Q Design|Mobile|with Max-Q Design|\d{1,3}\s?GB))*)",
)
_GPU_WORD = re.compile(
    r"\b(?:NVIDIA|GeForce|Tesla|Quadro|RTX|GTX|TITAN)|\b[ABHLTVPK]\d{1,3}\b|\bH200\b|\bL40S?\b"
)
_CUDA_NUMBER = re.compile(r"(?:cuda\s?)?(?P<v>\d{1,2}\.\d{1,2})(?:\.\d{1,4})?", re.I)
_NVCC_RELEASE = re.compile(r"release (?P<v>\d{1,2}\.\d{1,2}), V(?P<full>\d{1,2}\.\d{1,2}\.\d{1,4})")
_NVCC_BUILD = re.compile(r"Build cuda_(?P<major>\d{1,2})\.(?P<minor>\d{1,2})")
_DS_OP_BUILDER = re.compile(
    r"Installed CUDA version (?P<nvcc>\d{1,2}\.\d{1,2}) does not match the version torch was compiled "
    r"with (?P<torch>\d{1,2}\.\d{1,2})"
)
_TORCH_BACKEND = re.compile(r"^nVidia CUDA (?P<v>\d{1,2}\.\d{1,2})\b")
_REPL_BOOL = re.compile(r"^(?:Out\[\d{1,4}\]: ?)?(?P<b>True|False)$")
_CUDA_TENSOR = re.compile(r"device='cuda:\d{1,2}'\)")
_XFORMERS_HAVE = re.compile(r"\(you have (?P<v>" + _VERSION + r")\)")
_DICT_MEMBER = re.compile(r"'(?P<name>[A-Za-z][\w.-]{0,60})': '(?P<v>" + _VERSION + r")'")
"""A member of a printed Python dict of package versions (SD.Next's ``System packages: {'torch': ...}``)."""
_PINNED = re.compile(
    r"(?<![\w.-])(?P<name>pytorch|torch|torchvision|torchaudio|xformers)==(?P<v>" + _VERSION + r")"
)
"""A pin naming the version (``torch==2.1.0+cu118``); ``pytorch`` is torch's conda name, written the
same way in prose ("My environment is `pytorch==1.7.1+cu110`")."""
_NVCC_SAID = re.compile(
    r"\bnvcc(?: (?:-V|--version|-v))?(?: version)? (?:shows?|says?|reports?|gives|returns?|prints?|is)"
    r" (?:CUDA |release |version )?v?(?P<v>\d{1,2}\.\d{1,2})(?:\.\d{1,4})?(?!\.?\d)"
)
"""A sentence telling what ``nvcc -V`` answered ("but !nvcc -V shows 11.2 CUDA Compiler version"): the
words between ``nvcc`` and the number are fixed, so "nvidia-smi shows CUDA 12.2" or "nvcc: none, torch
is 2.1" are not read as nvcc."""
_LDCONFIG_CUDNN = re.compile(
    r"^(?P<lib>libcudnn(?:_[a-z_]{2,40})?\.so\.(?P<major>\d{1,2})) \(libc6[\w,-]{0,30}\) => "
    r"(?P<path>/[\w./+-]{1,200})$"
)
"""A row of ``ldconfig -p``: a cuDNN library the system loader finds, with its soname major."""
_SW_VERS_NAMES = frozenset({"macos", "mac os x"})
_MACOS_VERSION = re.compile(r"\d{2}(?:\.\d{1,2}){0,2}")
_SECTION_PIP = re.compile(
    r"^\[(?:pip3?|conda)\] (?P<name>[A-Za-z0-9][\w.-]{0,80})(?:==| {1,40})(?P<v>\d[^\s]{0,60})"
)
_COLLECTING_NVIDIA = re.compile(r"^Collecting (?P<name>nvidia-[\w-]{1,60})==(?P<v>\d[\w.]{0,30})")
_BNB_BINARY = re.compile(r"libbitsandbytes_cuda(?P<v>\d{3})(?:_nocublaslt)?\.(?:so|dll)")
_DUNDER_VERSION = re.compile(r"torch\.__version__\s{0,4}={1,2}\s{0,4}[\"']?(?P<v>" + _VERSION + r")")
_DUNDER_SAID = re.compile(
    r"torch\.__version__.{0,120}?\b(?:prints?|printed|returns?|returned|gives|shows|outputs?)\s{1,4}[\"']?"
    r"(?P<v>" + _VERSION + r")"
)
"""A sentence telling what ``print(torch.__version__)`` answered: "... prints 2.12.0+cu130 and None"."""
_NAMED_VERSION = re.compile(r"\b(?P<name>[A-Za-z][\w.-]{1,30}) version v?(?P<v>" + _VERSION + r")(?![\w.])")
"""A sentence naming a package's version ("When using jax version 0.7.1"): kept for known packages."""
_AMD_GPU = re.compile(r"(?:AMD |ATI )?(?:Radeon|Instinct)\b|AMD (?:Ryzen .{0,40}with Radeon|APU)\b")
"""An AMD GPU's product name ("AMD Radeon RX 6900 XT", "Instinct MI250X"): not an NVIDIA device."""
_GFX = re.compile(r"\bgfx(?:\d{3,4}|90[a-c])[a-z]?\b")
_AMD_PROSE = re.compile(r"\b(?:AMD|Radeon|ROCm)\b")
"""A gfx target counts as an AMD GPU in prose only beside one of these words ("AMD APU (gfx1150, ...)")."""
_DIFFERENT_DEVICES = re.compile(r"Detected different devices in the system: (?P<names>[^.]{2,400})\.")
"""vLLM's warning on a host with GPUs of several models: it names each one."""
_TEGRASTATS = re.compile(r"^RAM \d{1,7}/\d{1,7}MB .{0,400}\bGR3D_FREQ \d{1,3}%")
"""A tegrastats sample: only L4T on a Jetson prints it (GR3D is the Jetson's integrated NVIDIA GPU)."""
# Separators of a sentence or footer listing its stack; A1111/Forge print theirs with bullets
# ("version: v1.6.0  •  python: 3.10.11  •  torch: 2.0.1+cu118  •  xformers: 0.0.20  •  gradio: 3.41.2").
_XPU_SMI_NAME = re.compile(r"^\|(?: {1,3}\d{1,3})? {1,3}\| Device Name: (?P<name>[^|]{2,100}?) {0,3}\|$")
"""A row of ``xpu-smi discovery``'s table (Intel's GPU tool; sglang's check_env prints it too); the first
row of a device carries its id. Its spaces are already squeezed by ``normalise``."""
_VULKAN_DEVICE = re.compile(
    r"^(?:ggml_vulkan: |Vulkan)(?P<i>\d{1,2})(?: =|:) (?P<rest>[^|]{2,200}?) \| uma: [01]\b"
)
"""ggml's Vulkan device line (llama.cpp, Ollama, node-llama-cpp): ``ggml_vulkan: 0 = <name> (<driver>) |
uma: 1 | fp16: ...``; older builds print ``Vulkan0: <name> | uma: 0``. The vendor is in the name."""
_SYCL_DEVICE = re.compile(
    r"^\[(?:ext_oneapi_)?(?P<backend>level_zero(?:_v2)?|opencl|cuda|hip|native_cpu)"
    r"(?::(?P<type>gpu|cpu|acc|fpga))(?::\d{1,2})?\](?:\[[a-z_0-9]{2,30}:\d{1,2}\])? "
    r"(?P<platform>[^,\[\]]{2,120}), (?P<device>[^\[\]]{2,160}?)"
    r"(?: OpenCL \d| (?P<version>\d{1,2}\.\d{1,3}(?:\.\d{1,6})?)\b| (?P<gfx>gfx[0-9a-f]{3,4}[a-z]?)\b| ?\[|$)"
)
"""A device line of ``sycl-ls`` (oneAPI's device list): ``[level_zero:gpu][level_zero:0] Intel(R)
Level-Zero, Intel(R) Arc(TM) A770 Graphics 12.55.8 [1.3.29735]``; before oneAPI 2024
``[ext_oneapi_level_zero:gpu:0] ...``.
The version after a CUDA backend's device is its compute capability, after a HIP one its gfx target."""
_GGML_SYCL_DEVICE = re.compile(
    r"^Device (?P<i>\d{1,2}): (?P<device>[^,]{2,100}?) ?, {1,10}compute capability \d{1,2}\.\d{1,2},$"
)
"""ggml's SYCL device list before 2024 (``found 4 SYCL devices:`` then ``Device 0: Intel(R) Arc(TM) A770
Graphics,     compute capability 1.3,``): the "capability" is the backend's version, not a CUDA one."""
_GGML_SYCL_ROW = re.compile(
    r"^\| ?\d{1,2}\|\[(?:ext_oneapi_)?(?P<backend>level_zero|opencl|cuda|hip)(?:_v2)?"
    r":(?P<type>gpu|cpu|acc|fpga):\d{1,2}\]\| {0,3}(?P<device>[^|]{2,100}?)"
    r"\| {0,3}(?P<version>\d{1,2}\.\d{1,3})\|"
)
"""A row of ggml's SYCL device table since 2024: ``| 0|[level_zero:gpu:0]|  Intel(R) Arc(TM) A770 Graphics|
1.3|  512|...`` (its spaces already squeezed by ``normalise``)."""
_MAC_GPU_KEYS = frozenset({"chipset model", "sppci model"})
_METAL_KEYS = frozenset(
    {
        "metal",
        "metal support",
        "metal family",
        "gpu family",
        "spdisplays mtlgpufamilysupport",
        "spdisplays metalfamily",
    }
)
"""``system_profiler SPDisplaysDataType``'s GPU lines (text and ``-json``): the GPU's model and its Metal
support ("Metal: Supported, feature set macOS GPUFamily2 v1", "Metal Support: Metal 3")."""
_APPLE_GPU = re.compile(r"^Apple M\d{1,2}(?: (?:Pro|Max|Ultra))?\b")
"""An Apple silicon GPU named in a GPU field ("GPU name: Apple M1", "GPU: Apple M4, 10 cores"): every one
of them runs Metal, so the name alone is the Mac's Metal GPU."""
_MPS_KEYS = frozenset({"torch.backends.mps", "torch.mps", "mps available", "is mps available"})
"""A printed answer of ``torch.backends.mps.is_available()`` ("torch.backends.mps: True")."""
_INTEL_GPU_WORD = re.compile(r"\b(?:Graphics|Arc|GPU|Iris|UHD|Xe)\b")
"""An Intel product that is a GPU ("Arc(TM) A770 Graphics", "Data Center GPU Max 1550"), not a Core CPU or
the FPGA emulator a SYCL list also shows."""
_JSON_NAME = re.compile(r'^"_name" ?: ?"(?P<name>[^"]{2,80})",?$')
"""``system_profiler -json``'s item name: the GPU's when a Metal key follows it."""
_VULKAN_DRIVER = re.compile(r" \((?:[^()]*driver|NVIDIA|radv|RADV[^()]*)\)$")
_HIP_PATH_KEYS = frozenset({"rocm_path", "hip_path", "hcc_home", "hip_clang_path"})
_ROCM_DIR = re.compile(r"^(?P<path>/opt/rocm(?:-(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,2})?))?)(?:/|$)")
_SEGMENT = re.compile(r"[;,()•]")
_PIP_SHOW_REQUIRES_CUDA = re.compile(r"\bnvidia-cuda-runtime-cu(?P<major>\d{2})\b")
_SMI_HEADER_INLINE = re.compile(
    r"\bDriver Version ?[:：] ?(?P<driver>\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b"
    r"(?:.{0,40}?\bCUDA Version ?[:：] ?(?P<cuda>\d{1,2}\.\d{1,2})\b)?"
)
"""nvidia-smi's header pair wherever a line holds it: ``nvidia-smi -q`` flattened into one paragraph
("Timestamp : ... Driver Version : 535.129.03 CUDA Version : 12.2"), a header quoted inside prose."""
_CONDA_INSTALL_CUDA = re.compile(
    r"\b(?:conda|mamba|micromamba) install\b.{0,200}?\bpytorch\b.{0,200}?"
    r"\b(?:cudatoolkit|pytorch-cuda)=(?P<v>\d{1,2}\.\d{1,2})\b"
)
"""A conda install of torch with its CUDA pinned: conda picks the pytorch build for that CUDA
(``cudatoolkit=11.3``, ``pytorch-cuda=12.1``), so the line states torch's CUDA. As a fact it only fills
what no structural report says (a collect_env's 'CUDA used to build PyTorch' wins)."""
_PIP_TORCH_WHEEL = re.compile(
    r"\bpip3?(?:\.exe)? install\b.{0,200}?download\.pytorch\.org/whl/(?:nightly/)?"
    r"(?:(?P<dir>cu\d{2,3}|cpu|rocm[\d.]+)/)?torch-\d+\.\d+(?:\.\d+)?(?:\.post\d+)?"
    r"(?:(?:%2B|\+)(?P<local>cu\d{2,3}|cpu|rocm[\d.]+))?-cp\d",
    re.I,
)
"""A pip install of one torch wheel by its URL: its index directory (``/whl/cu100/``, the only tag of
wheels before 1.5) or its encoded local version (``torch-1.7.1%2Bcu110``) states the build's CUDA. Like
a conda install line it only fills what no structural report says."""
_HF_TORCH = re.compile(
    r"^PyTorch version \((?:GPU|accelerator)\?\)\s*:\s*(?P<v>\d[\w.+-]{0,60}?)\s*"
    r"\((?P<answer>[A-Za-z]{2,6})\)\s*$",
    re.I,
)
"""The Hugging Face env commands' torch line (transformers-cli/diffusers-cli/accelerate/peft env):
``PyTorch version (GPU?): 2.2.1+cu121 (True)``; transformers >= 4.45 writes ``(accelerator?): ... (CUDA)``.
The key's ``?`` is outside the plain key pattern, and the parenthesis is torch.cuda.is_available()
(or the accelerator found: CUDA, or NA for none)."""
_BARE_GEFORCE = re.compile(
    r"\b(?:a|an|my|the|one|two|dual|single)\s(?P<n>(?:10|20|30|40|50)[5-9]0)(?P<ti>\s?Ti)?\s"
    r"(?:GPUs?|graphics card|video card)\b",
    re.I,
)
"""A GeForce named by its model number alone ("I ... have a 5080 GPU"): only the x050-x090 numbers of the
GTX 10 and RTX 20-50 series, after an article and before "GPU", so AMD's 5700/6800/7900, a year or a
price are not read as one."""
_TARGET_TRIPLE = re.compile(
    r"(?:x86_64|aarch64|arm64|i686|powerpc64le|ppc64le|s390x|riscv64)-[a-z0-9_]+-(?:linux|windows|darwin)"
    r"[a-z0-9_-]*"
)
"""A target triple (``x86_64-unknown-linux-gnu``) as the value of ``Target:``: the platform a native
tool runs on (text-generation-launcher --env prints its build target first; clang/hipcc --version too)."""
_JAX_CPU_FALLBACK = re.compile(
    r"An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed"
)
"""jax's own line when it finds an NVIDIA GPU (it checks the driver) next to a CPU-only jaxlib."""
_JAX_CUDA_BUILD = re.compile(
    r"\bjax_plugins[./\\]xla_cuda\d+|\bjax[-_]cuda\d+[-_](?:plugin|pjrt)\b"
    r"|\bjaxlib[-=:\s]+\d[\w.]*\+cuda\d+",
    re.I,
)
"""A CUDA build of jax in the paste: the plugin's module (``jax_plugins.xla_cuda12``, in its
initialization error), its wheels (``jax-cuda12-plugin``), or a ``jaxlib ...+cuda12`` wheel. jax prints
the same "a CUDA-enabled jaxlib is not installed" line when that plugin fails to initialize (a CUDA
library it cannot load), so next to one the line does not mean a CPU-only jaxlib."""


@dataclass
class _Reader:
    """The state one pass over the lines keeps: the key a heading announced, pip show's current name."""

    facts: list[Fact] = field(default_factory=list)
    heading: tuple[str, int] | None = None
    pip_show: str | None = None
    last_code: str = ""
    torch_config: bool = False
    """Whether a "PyTorch built with:" line (``torch.__config__.show()``) came before."""
    json_name: tuple[str, int] | None = None
    """The last ``"_name" : "..."`` member of a ``system_profiler -json`` listing and its line."""
    product: tuple[str, int] | None = None
    """sw_vers' ``ProductName`` (macOS) and its line, waiting for the ``ProductVersion`` after it."""

    def add(self, kind: str, value: str, line: int, detail: str = "") -> None:
        self.facts.append(Fact(kind, value.strip().rstrip("."), line, detail))

    def facts_on(self, number: int) -> bool:
        """Whether line ``number`` already gave a fact."""
        return bool(self.facts) and self.facts[-1].line == number


def _gpu_name(text: str) -> str | None:
    """A GPU product name in ``text`` with its spelling made regular (``RTX4090`` -> ``RTX 4090``)."""
    if _GPU_WORD.search(text) is None:
        return None
    match = _GPU_NAME.search(text)
    if match is None:
        return None
    name = match.group("name").strip()
    name = re.sub(r"\b(RTX|GTX)(?=\d)", r"\1 ", name)
    name = re.sub(r"(?<=\d)(ti|Ti)\b", r" Ti", name)
    name = re.sub(r"\bGeForce (?=\d{4}\b)", "GeForce RTX ", name)
    if re.match(r"[ABHLTVPK]\d", name):
        return None  # a lone "T4"/"A1" is too easily something else: only "NVIDIA A100", "Tesla T4" count
    return name


def _version(value: str) -> str | None:
    match = _VERSION_AT.match(value)
    return match.group("v") if match else None


def _key_value(reader: _Reader, key: str, value: str, number: int) -> bool:
    """Facts from one ``key: value`` line; whether the key was one envsnap reads."""
    if key in _MAC_GPU_KEYS:
        reader.add("mac-gpu", value[:80], number)
        return True
    if key in _MPS_KEYS or key.endswith("mps.is_available()"):
        word = value.split()[0].lower() if value.split() else ""
        if word in ("true", "false"):
            reader.add("mps-available", "yes" if word == "true" else "no", number)
        return True
    if key in _METAL_KEYS:
        reader.add("metal", value[:80], number)
        if key.startswith("spdisplays") and reader.json_name and number - reader.json_name[1] <= 3:
            reader.add("mac-gpu", reader.json_name[0], number)
        return True
    if key in _TORCH_KEYS:
        found = _version(value)
        if found:
            reader.add("torch", found, number)
        return found is not None
    if key in _TORCH_CUDA_KEYS:
        match = _CUDA_NUMBER.match(value)
        if match:
            reader.add("torch-cuda", match.group("v"), number)
        return True
    if key in _AVAILABLE_KEYS:
        word = value.split()[0].lower() if value.split() else ""
        if word in ("true", "yes", "false", "no"):
            reader.add("cuda-available", "yes" if word in ("true", "yes") else "no", number)
        return True
    if key in _DRIVER_KEYS:
        driver = re.match(r"(?P<v>\d{3}(?:\.\d{1,3}){0,2})\b", value)
        api = re.match(r"(?P<v>1\d\.\d)\b", value)
        if driver:
            reader.add("driver", driver.group("v"), number)
        elif api:
            reader.add("cuda-driver", api.group("v"), number)
        return True
    if key in _NVCC_KEYS:
        release = _NVCC_RELEASE.search(value)
        build = _NVCC_BUILD.search(value)
        if release:
            reader.add("nvcc", release.group("full"), number)
        elif build:
            reader.add("nvcc", f"{build.group('major')}.{build.group('minor')}", number)
        elif key == "cuda compiler" and value.startswith("CUDA "):
            # detectron2 prints the CUDA its compiled ops were built with, not a toolkit on PATH
            match = _CUDA_NUMBER.match(value[5:])
            if match:
                reader.add("extension-cuda", match.group("v"), number, "detectron2")
        else:
            match = _CUDA_NUMBER.match(value)
            if match and key in ("nvcc version", "cuda toolkit", "cuda toolkit version"):
                reader.add("nvcc", match.group("v"), number)
        return True
    if key in ("cuda_home", "cuda home", "cuda_path"):
        home = _CUDA_HOME_VERSION.search(value)
        if home:
            reader.add("cuda-home", home.group("v"), number)
        return True
    if key == "nvcc architecture flags" and reader.torch_config:
        archs = _TORCH_CONFIG_ARCH.findall(value)
        if archs:
            reader.add("torch-arch", " ".join(dict.fromkeys(archs)), number)
        return True
    if key in _CUDA_KEYS:
        match = _CUDA_NUMBER.search(value[:40])
        if match:
            reader.add("cuda-stated", match.group("v"), number)
        return True
    if key in _PYTHON_KEYS:
        match = re.match(r"(?P<v>\d\.\d{1,2}(?:\.\d{1,3})?)", value)
        if match:
            reader.add("python", match.group("v"), number)
        return True
    if key == "productname":
        # sw_vers (macOS): "ProductName: macOS" then "ProductVersion: 12.7.6"
        reader.product = (value.strip(), number) if value.strip().lower() in _SW_VERS_NAMES else None
        return reader.product is not None
    if key == "productversion" and reader.product is not None and number - reader.product[1] <= 2:
        if _MACOS_VERSION.fullmatch(value.strip()):
            reader.add("os", f"macOS {value.strip()}", number)
        reader.product = None
        return True
    if key == "target" and _TARGET_TRIPLE.fullmatch(value.strip()):
        reader.add("os", value.strip(), number)
        return True
    if key in _OS_KEYS:
        value = value.strip("\"'")
        if (
            value
            and value.lower() not in ("nt", "posix", "n/a")
            and len(value) <= 100
            and not value.startswith("[")
        ):
            reader.add("os", value, number)
        return True
    if key == "hip version":
        # hipconfig's first line; from ROCm 3.x on HIP is versioned with its ROCm release (3.10.20465 is
        # ROCm 3.10's), before that it was not (HIP 1.4 shipped in ROCm 1.7): only the former says ROCm
        hip = re.match(r"(?P<v>\d{1,2}\.\d{1,2})\.\d{1,6}\b", value)
        if hip and int(hip.group("v").split(".")[0]) >= 3:
            reader.add("rocm", hip.group("v"), number, "hipconfig")
        else:
            reader.add("hip", value.split()[0][:40], number)
        return True
    if key in _HIP_PATH_KEYS:
        # hipconfig's paths: a ROCm install, versioned when the directory says it (/opt/rocm-3.10.0)
        rocm = _ROCM_DIR.match(value)
        if rocm:
            reader.add("rocm-path", rocm.group("path"), number, rocm.group("v") or "")
        return rocm is not None
    if key == "torch backend":
        match = _TORCH_BACKEND.match(value)
        if match:
            reader.add("torch-cuda", match.group("v"), number)
        return True
    if key in _GPU_KEYS or _GPU_INDEX_KEY.match(key):
        device = _DEVICE_CUDA.match(value)
        if device:
            reader.add("cuda-in-use", device.group("i"), number)
            value = device.group("name")
        name = _gpu_name(value)
        if name:
            cc = _ARCH_TUPLE.search(value)
            reader.add("gpu", name, number, f"{cc.group('major')}.{cc.group('minor')}" if cc else "")
        elif _AMD_GPU.match(value):
            gfx = _GFX.search(value)
            reader.add("amd-gpu", value[:80], number, gfx.group(0) if gfx else "")
        elif apple := _APPLE_GPU.match(value):
            reader.add("mac-gpu", apple.group(0), number)
        elif value.startswith("Intel") and _INTEL_GPU_WORD.search(value):
            # "GPU : Intel Arc A750 8GB" (SD.Next's template): an Intel GPU, by the same words sycl-ls uses
            reader.add("intel-gpu", value[:80], number)
        return name is not None or key in _GPU_KEYS
    if _CC_KEY.match(key):
        cc = re.match(r"(?P<cc>\d{1,2}\.\d)\b", value)
        if cc:
            reader.add("cc", cc.group("cc"), number)
        return True
    if key == "package version found":
        row = _PACKAGE_FOUND.match(f"Package version found: {value}")
        if row:
            reader.add("package", row.group("v"), number, row.group("name"))
        return True
    if key == "name" and reader.pip_show is None:
        return False
    if key == "requires" and reader.pip_show == "torch":
        cuda = _PIP_SHOW_REQUIRES_CUDA.search(value)
        if cuda:
            reader.add("torch-requires-cuda", cuda.group("major"), number)
        return True
    name = _PKG_KEY_SUFFIX.sub("", key).replace(" ", "-")
    if name in KNOWN_PACKAGES:
        found = _version(value)
        if found:
            reader.add("package", found, number, name)
        return found is not None
    return False


def _line(reader: _Reader, number: int, raw: str) -> None:
    line = normalise(raw)
    if not line:
        return
    lower = line.lower()
    # pip show: "Name: torch" then "Version: 2.2.1" and "Requires: ...".
    if line.startswith("Name: "):
        reader.pip_show = line[6:].strip().lower() or None
    elif line.startswith("Version: ") and reader.pip_show:
        found = _version(line[9:].strip())
        if found:
            reader.add("package", found, number, reader.pip_show)
        return
    if reader.heading is not None:
        key, at = reader.heading
        if number - at <= 4 and not line.startswith("#") and _key_value(reader, key, line, number):
            reader.heading = None
            return
        if number - at > 4:
            reader.heading = None
    if raw.lstrip().startswith("#") and len(line) <= 60:
        reader.heading = (line.lower().rstrip(":"), number)
        return
    if "?)" in line and (hf := _HF_TORCH.match(line)):
        reader.add("torch", hf.group("v"), number)
        answer = hf.group("answer").lower()
        if answer in ("true", "cuda", "false", "na"):
            reader.add("cuda-available", "yes" if answer in ("true", "cuda") else "no", number)
        return
    kv = _KV.match(line)
    if kv is not None:
        key = " ".join(kv.group("key").lower().split()).rstrip(" .:")
        value = kv.group("value").strip()
        if _key_value(reader, key, value, number):
            return
        # "Versions: PyTorch 2.8.0 + cu129": a key torch's own keys do not cover, torch named in the value.
        if "torch" in value.lower() and (torch := _TORCH_INLINE.match(value)):
            reader.add("torch", _torch_of(torch), number)
            return
    _inline(reader, number, line, lower)


def _torch_of(match: re.Match[str]) -> str:
    """The version an inline torch match states, its build tag joined when written apart."""
    version = match.group("v")
    local = match.group("local")
    return f"{version}+{local}" if local and "+" not in version else version


def _inline(reader: _Reader, number: int, line: str, lower: str) -> None:
    """Facts from lines without a key: start-up logs, pip output, prose, REPL answers."""
    if "pytorch built with" in lower:
        reader.torch_config = True
    if reader.torch_config and line.startswith("CUDA Runtime "):
        runtime = _TORCH_CONFIG_CUDA.match(line)
        if runtime:
            reader.add("torch-cuda", runtime.group("v"), number)
            return
    if "nccl" in lower:
        nccl_driver = _NCCL_DRIVER.search(line)
        if nccl_driver:
            driver_api = int(nccl_driver.group("api"))
            reader.add("cuda-driver", f"{driver_api // 1000}.{(driver_api % 1000) // 10}", number)
            return
        nccl = _NCCL_VERSION.search(line)
        if nccl:
            reader.add("nccl", nccl.group("v"), number, nccl.group("cuda") or "")
            return
    if "driver api version" in lower:
        paddle = _PADDLE_DEVICE.search(line)
        if paddle:
            cc = paddle.group("cc")
            reader.add("cc", cc if "." in cc else f"{cc[:-1]}.{cc[-1]}", number)
            reader.add("cuda-driver", paddle.group("driver"), number)
            reader.add("cuda-stated", paddle.group("runtime"), number, "paddle runtime")
            return
    if "torch" in lower:
        match = _TORCH_INLINE.match(line)
        if match:
            reader.add("torch", _torch_of(match), number)
        elif "torch version" in lower and (said := _TORCH_BUILD_SAID.search(line)):
            reader.add("torch", said.group("v"), number)
        elif " torch-" in line and (banner := _YOLO_BANNER.search(line)):
            _yolo_banner(reader, number, banner)
        for wheel in _WHEEL.finditer(line) if "-cp" in line else ():
            local = f"+{wheel.group('local')}" if wheel.group("local") else ""
            reader.add("package", wheel.group("v") + local, number, wheel.group("name"))
    if "': '" in line:
        for member in _DICT_MEMBER.finditer(line):
            if member.group("name").lower() in KNOWN_PACKAGES:
                reader.add("package", member.group("v"), number, member.group("name").lower())
    if "==" in line:
        for pinned in _PINNED.finditer(line):
            name = pinned.group("name")
            reader.add("package", pinned.group("v"), number, "torch" if name == "pytorch" else name)
    if "nvcc" in lower:
        nvcc_said = _NVCC_SAID.search(line)
        if nvcc_said:
            reader.add("nvcc", nvcc_said.group("v"), number)
    if line.startswith("libcudnn"):
        cudnn = _LDCONFIG_CUDNN.match(line)
        if cudnn:
            reader.add("cudnn", cudnn.group("major"), number, cudnn.group("path"))
            return
    if line.startswith("["):
        row = _SECTION_PIP.match(line)
        if row:
            reader.add("package", row.group("v"), number, row.group("name"))
            return
    if line.startswith("Collecting nvidia-"):
        row = _COLLECTING_NVIDIA.match(line)
        if row:
            reader.add("package", row.group("v"), number, row.group("name"))
    if "libbitsandbytes_cuda" in line:
        bnb = _BNB_BINARY.search(line)
        if bnb:
            digits = bnb.group("v")
            reader.add("bitsandbytes-cuda", f"{digits[:-1]}.{digits[-1]}", number)
    if "__version__" in line:
        dunder = _DUNDER_VERSION.search(line) or _DUNDER_SAID.search(line)
        if dunder:
            reader.add("torch", dunder.group("v"), number)
        elif "torch" in line:
            reader.last_code = "version"
            return
    if reader.last_code == "version":
        reader.last_code = ""
        found = _VERSION_AT.fullmatch(line.strip("'\""))
        if found:
            reader.add("torch", found.group("v"), number)
            return
    if line.startswith("Python "):
        match = _PYTHON_INLINE.match(line)
        if match:
            reader.add("python", match.group("v"), number)
    if "which is incompatible" in lower:
        for conflict in _RESOLVER.finditer(line):
            reader.add("package", conflict.group("ver"), number, conflict.group("pkg"))
            reader.add("package", conflict.group("have"), number, conflict.group("dep2"))
            reader.add("pip-conflict", conflict.group(0), number, conflict.group("pkg"))
    if "successfully installed" in lower:
        found = _INSTALLED.search(line)
        for item in found.group("list").split() if found else ():
            row = _INSTALLED_ITEM.match(item)
            if row:
                reader.add("package", row.group("v"), number, row.group("name"))
    if line.startswith("Requirement already satisfied: "):
        row = _SATISFIED.match(line)
        if row:
            reader.add("package", row.group("v"), number, row.group("name"))
    if "you have " in lower:
        have = _XFORMERS_HAVE.search(line)
        if have:
            reader.add("torch", have.group("v"), number)
    if "installed cuda version" in lower:
        ds = _DS_OP_BUILDER.search(line)
        if ds:
            reader.add("nvcc", ds.group("nvcc"), number)
            reader.add("torch-cuda", ds.group("torch"), number)
    said_driver = any(f.kind == "driver" and f.line == number for f in reader.facts[-4:])
    if "driver version" in lower and not said_driver:
        header = _SMI_HEADER_INLINE.search(line)
        if header:
            reader.add("driver", header.group("driver"), number)
            if header.group("cuda"):
                reader.add("cuda-driver", header.group("cuda"), number)
    if " install" in lower and "=" in line:
        conda = _CONDA_INSTALL_CUDA.search(line)
        if conda:
            reader.add("torch-cuda", conda.group("v"), number)
    if (
        "download.pytorch.org" in lower
        and " install" in lower
        and (pip_wheel := _PIP_TORCH_WHEEL.search(line))
    ):
        tag = pip_wheel.group("local") or pip_wheel.group("dir") or ""
        if tag.lower().startswith("cu"):
            digits = tag[2:]
            reader.add("torch-cuda", f"{digits[:-1]}.{digits[-1]}", number)
    if "cuda" in lower and "jax" in lower and (plugin := _JAX_CUDA_BUILD.search(line)):
        reader.add("jax-cuda-build", plugin.group(0), number)
    if "cuda-enabled jaxlib" in lower and _JAX_CPU_FALLBACK.search(line):
        reader.add("jax-cpu-fallback", line, number)
        reader.add("nvidia-driver-present", "jax: an NVIDIA GPU may be present", number)
    if " version " in lower and not reader.facts_on(number):
        for named in _NAMED_VERSION.finditer(line):
            # torch has its own patterns (a bare version there must not look like a build)
            if named.group("name").lower() in KNOWN_PACKAGES - {"torch"}:
                reader.add("package", named.group("v"), number, named.group("name").lower())
    if "gfx" in lower and (gfx := _GFX.search(line)) and _AMD_PROSE.search(line):
        reader.add("amd-gpu", AMD_UNNAMED, number, gfx.group(0))
    if "different devices" in lower and (listed := _DIFFERENT_DEVICES.search(line)):
        for part in listed.group("names").split(",")[:16]:
            name = _gpu_name(part.strip())
            if name:
                reader.add("gpu", name, number)
    if line.startswith('"_name"') and (json_name := _JSON_NAME.match(line)):
        reader.json_name = (json_name.group("name"), number)
        return
    if line.startswith("[") and (sycl := _SYCL_DEVICE.match(line)):
        _sycl_device(reader, number, sycl.group("backend"), sycl.group("type"), sycl)
        return
    if line.startswith("|") and "]|" in line and (row := _GGML_SYCL_ROW.match(line)):
        _sycl_device(reader, number, row.group("backend"), row.group("type"), row)
        return
    if line.startswith("Device ") and (ggml := _GGML_SYCL_DEVICE.match(line)):
        _sycl_device(reader, number, "ggml-sycl", "", ggml)
        return
    if "Device Name: " in line and (xpu := _XPU_SMI_NAME.match(line)):
        reader.add("intel-gpu", xpu.group("name"), number)
    if "| uma: " in line and (vulkan := _VULKAN_DEVICE.match(line)):
        _vulkan_device(reader, number, vulkan.group("rest"))
    if "GR3D_FREQ" in line and _TEGRASTATS.match(line):
        reader.add("nvidia-driver-present", "tegrastats (a Jetson's GPU)", number)
    if "cuda toolkit detected" in lower:
        reader.add("nvidia-driver-present", "nVidia CUDA toolkit detected", number)
    if "compute capability" in lower or "compute=" in lower:
        _gpu_lines(reader, number, line)
    if "libcuda.so." in line:
        driver = _LIBCUDA.search(line)
        if driver:
            reader.add("driver", driver.group("v"), number)
    if "driver=" in line and "library=cuda" in line:
        api = _OLLAMA_DRIVER.search(line)
        if api:
            reader.add("cuda-driver", api.group("v"), number)
    if line[:1].isdigit() and ") " in line[:4]:
        gpu = _CRYSTOOLS_GPU.match(line)
        if gpu:
            reader.add("gpu", gpu.group("name"), number)
    if "cuda:" in line and "device=" in line and _CUDA_TENSOR.search(line):
        reader.add("cuda-in-use", "tensor", number)
    if "is_available()" in line:
        # A REPL's answer comes on the next line: which question it answers is remembered here.
        reader.last_code = "mps-available" if "mps.is_available()" in line else "cuda-available"
        tail = line.rsplit("is_available()", 1)[1].strip().lower()
        if reader.last_code == "cuda-available" and tail.startswith(
            ("return false", "returns false", "is false", "= false", "==false")
        ):
            reader.add("cuda-available", "no", number)
        return
    if reader.last_code in ("mps-available", "cuda-available"):
        answer = _REPL_BOOL.match(line)
        if answer:
            reader.add(reader.last_code, "yes" if answer.group("b") == "True" else "no", number)
        reader.last_code = ""
    aligned = _ALIGNED_PKG.match(line)
    if aligned and aligned.group("name").lower() in KNOWN_PACKAGES:
        reader.add("package", aligned.group("v"), number, aligned.group("name").lower())
        return
    if len(line) <= 100 and not reader.facts_on(number):
        name = _gpu_name(line)
        if name:
            reader.add("gpu", name, number)
    if " gpu" in lower or " card" in lower:
        bare = _BARE_GEFORCE.search(line)
        if bare and not any(f.line == number and f.kind == "gpu" for f in reader.facts[-4:]):
            series = "GTX" if bare.group("n").startswith("10") else "RTX"
            suffix = " Ti" if bare.group("ti") else ""
            reader.add("gpu", f"NVIDIA GeForce {series} {bare.group('n')}{suffix}", number)
    if _SEGMENT.search(line) and not any(f.line == number and f.kind == "torch" for f in reader.facts[-8:]):
        _segments(reader, number, line)


def _yolo_banner(reader: _Reader, number: int, banner: re.Match[str]) -> None:
    """Ultralytics' banner: python, torch and the CUDA device torch opened (its name as torch reports it)."""
    reader.add("python", banner.group("python"), number)
    reader.add("torch", banner.group("v"), number)
    gpu = banner.group("gpu")
    name = _gpu_name(gpu) if gpu else None
    if name:
        reader.add("gpu", name, number)


def _segments(reader: _Reader, number: int, line: str) -> None:
    """A sentence listing its stack ("Python 3.8.11, torch 1.9.1, CUDA Version: 12.0"): each part alone."""
    for part in _SEGMENT.split(line, maxsplit=20):
        part = part.strip()
        if not part or len(part) > 80:
            continue
        kv = _KV.match(part) if ":" in part else None
        if kv is not None:
            key = " ".join(kv.group("key").lower().split()).rstrip(" .:")
            if key != "name" and _key_value(reader, key, kv.group("value").strip(), number):
                continue
        torch = _TORCH_INLINE.match(part)
        python = _PYTHON_INLINE.match(part)
        if torch:
            reader.add("torch", _torch_of(torch), number)
        elif python:
            reader.add("python", python.group("v"), number)
        elif part.lower().startswith("cuda"):
            cuda = _CUDA_NUMBER.search(part[:30])
            if cuda:
                reader.add("cuda-stated", cuda.group("v"), number)


def _vulkan_device(reader: _Reader, number: int, rest: str) -> None:
    """A GPU ggml's Vulkan backend lists, under its vendor (its name says which): Vulkan states no compute
    capability or gfx target in a form the CUDA/ROCm readers take, only the product and its driver."""
    name = _VULKAN_DRIVER.sub("", rest.strip())
    if name.startswith("Intel"):
        reader.add("intel-gpu", name[:80], number)
    elif _AMD_GPU.match(name) or "AMD" in name:
        gfx = _GFX.search(rest.lower())
        reader.add("amd-gpu", name[:80], number, gfx.group(0) if gfx else "")
    elif (nvidia := _gpu_name(name)) is not None:
        reader.add("gpu", nvidia, number)


def _sycl_device(reader: _Reader, number: int, backend: str, kind: str, sycl: re.Match[str]) -> None:
    """One device a SYCL listing names (sycl-ls, ggml's SYCL list or table): the backend and type always (a
    list with no GPU is still a fact), and a GPU under its vendor, as ggml's Vulkan lines are (the same GPU
    under two backends is one device). ggml's old list states no type: its CPUs and FPGA emulators are
    told apart by name, only GPU product names count."""
    device = sycl.group("device").strip()
    reader.add("sycl-device", f"{backend}:{kind}" if kind else backend, number, device[:80])
    if kind not in ("gpu", ""):
        return
    groups = sycl.groupdict()
    if device.startswith("Intel") and _INTEL_GPU_WORD.search(device):
        reader.add("intel-gpu", device[:80], number)
    elif backend == "hip" or _AMD_GPU.match(device):
        reader.add("amd-gpu", device[:80], number, groups.get("gfx") or "")
    elif (nvidia := _gpu_name(device)) is not None:
        cc = groups.get("version") if backend == "cuda" else None
        reader.add("gpu", nvidia, number, cc if cc and re.fullmatch(r"\d{1,2}\.\d", cc) else "")


def _gpu_lines(reader: _Reader, number: int, line: str) -> None:
    llama = _LLAMA_DEVICE.match(line)
    if llama:
        reader.add("gpu", llama.group("name"), number, llama.group("cc"))
        return
    ollama = _OLLAMA_GPU.search(line)
    if ollama:
        reader.add("gpu", ollama.group("name"), number, ollama.group("cc"))
        reader.add("gpu-in-use", "ollama", number)
        return
    cc = _CC_INLINE.search(line)
    if cc:
        reader.add("cc", cc.group("cc"), number)
    arch = _ARCH_EQ.search(line)
    if arch:
        name = _gpu_name(line)
        if name:
            reader.add("gpu", name, number, arch.group("cc"))


def read(text: str) -> list[Fact]:
    """Every fact in ``text``, in line order."""
    reader = _Reader()
    for number, raw in enumerate(text.split("\n"), start=1):
        if raw and not raw.isspace():
            _line(reader, number, raw)
    return reader.facts
