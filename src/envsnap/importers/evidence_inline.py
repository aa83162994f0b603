"""Facts from lines of a paste that have no key (evidence.py): start-up logs, pip and conda output,
prose, REPL answers, banners, and the sentences that list a stack."""

from __future__ import annotations

import re

from envsnap.importers.evidence_base import (
    AMD_UNNAMED,
    CUDA_NUMBER,
    GFX,
    KEY_VALUE,
    KNOWN_PACKAGES,
    LOCAL_TAG,
    PYTHON_INLINE,
    TORCH_INLINE,
    VERSION,
    VERSION_AT,
    Reader,
    gpu_name,
    more_rows,
    torch_of,
)
from envsnap.importers.evidence_devices import (
    gpu_lines,
    listing,
)
from envsnap.importers.evidence_keys import key_value

_TORCH_BUILD_SAID = re.compile(
    r"\b(?:py)?torch version:? v?(?P<v>\d{1,4}\.\d{1,4}(?:\.\d{1,6})?\+" + LOCAL_TAG + r")(?![\w.])", re.I
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
_UNSLOTH_TORCH = re.compile(
    r"\bTorch: (?P<v>\d{1,4}\.\d{1,4}(?:\.\d{1,6})?(?:\.dev\d{1,8}|[ab]\d{1,3}|a0\+git[0-9a-f]{4,12})?"
    r"(?:\+[A-Za-z0-9]{1,20}(?:\.[A-Za-z0-9]{1,20}){0,3})?)\. CUDA: (?P<cc>\d{1,2}\.\d)\. "
    r"CUDA Toolkit: (?P<cuda>\d{1,2}\.\d{1,2})\b"
)
"""Unsloth's start-up banner, its third line: ``Torch: 2.6.0+cu124. CUDA: 12.0. CUDA Toolkit: 12.4.
Triton: 3.2.0``, where ``CUDA:`` is the GPU's compute capability and ``CUDA Toolkit:`` is
torch.version.cuda (the CUDA torch was built with), behind ASCII art (``O^O/ \\_/ \\``)."""
_UNSLOTH_GPU = re.compile(
    r"/\|[ \t]{1,12}(?P<name>[A-Za-z][^.|\\/]{1,80}?)\. Num GPUs = \d{1,3}\. Max memory: "
)
"""Unsloth's banner, its second line: ``\\   /|    NVIDIA GeForce RTX 5090. Num GPUs = 1. Max memory:
31.345 GB. Platform: Linux.``: the GPU torch opened, as torch names it."""
_ALIGNED_PKG = re.compile(r"^(?P<name>[A-Za-z][\w.-]{0,60}) {1,40}(?P<v>" + VERSION + r")(?: .*)?$")
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
_OLLAMA_DRIVER = re.compile(r"\bdriver=(?P<v>\d{1,2}\.\d)\b")
_LIBCUDA = re.compile(r"libcuda\.so\.(?P<v>\d{3}\.\d{1,3}(?:\.\d{1,3})?)")
_CRYSTOOLS_GPU = re.compile(r"^\d{1,2}\) (?P<name>(?:NVIDIA|GeForce|Tesla|Quadro)\b.{2,80})$")
_DS_OP_BUILDER = re.compile(
    r"Installed CUDA version (?P<nvcc>\d{1,2}\.\d{1,2}) does not match the version torch was compiled "
    r"with (?P<torch>\d{1,2}\.\d{1,2})"
)
_REPL_BOOL = re.compile(r"^(?:Out\[\d{1,4}\]: ?)?(?P<b>True|False)$")
_CUDA_TENSOR = re.compile(r"device='cuda:\d{1,2}'\)")
_XFORMERS_HAVE = re.compile(r"\(you have (?P<v>" + VERSION + r")\)")
_DICT_MEMBER = re.compile(r"'(?P<name>[A-Za-z][\w.-]{0,60})': '(?P<v>" + VERSION + r")'")
"""A member of a printed Python dict of package versions (SD.Next's ``System packages: {'torch': ...}``)."""
_PINNED = re.compile(
    r"(?<![\w.-])(?P<name>pytorch|torch|torchvision|torchaudio|xformers)==(?P<v>" + VERSION + r")"
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
_SECTION_PIP = re.compile(
    r"^\[(?:pip3?|conda)\] (?P<name>[A-Za-z0-9][\w.-]{0,80})(?:==| {1,40})(?P<v>\d[^\s]{0,60})"
)
_COLLECTING_NVIDIA = re.compile(r"^Collecting (?P<name>nvidia-[\w-]{1,60})==(?P<v>\d[\w.]{0,30})")
_BNB_BINARY = re.compile(r"libbitsandbytes_cuda(?P<v>\d{3})(?:_nocublaslt)?\.(?:so|dll)")
_DUNDER_VERSION = re.compile(r"torch\.__version__\s{0,4}={1,2}\s{0,4}[\"']?(?P<v>" + VERSION + r")")
_DUNDER_SAID = re.compile(
    r"torch\.__version__.{0,120}?\b(?:prints?|printed|returns?|returned|gives|shows|outputs?)\s{1,4}[\"']?"
    r"(?P<v>" + VERSION + r")"
)
"""A sentence telling what ``print(torch.__version__)`` answered: "... prints 2.12.0+cu130 and None"."""
_NAMED_VERSION = re.compile(r"\b(?P<name>[A-Za-z][\w.-]{1,30}) version v?(?P<v>" + VERSION + r")(?![\w.])")
"""A sentence naming a package's version ("When using jax version 0.7.1"): kept for known packages."""
_SERIES = re.compile(r"(?<![\w.-])(?P<name>[A-Za-z][\w.-]{1,30}) v?(?P<v>\d{1,4}\.\d{1,4})\.[xX*](?![\w.*])")
"""A release series written with a wildcard patch ("results in torchaudio 2.11.x being installed"): the
package's major.minor, all a companion check compares."""
_TF_BUILD = re.compile(
    r"""['"](?P<key>cuda_version|cudnn_version|is_cuda_build|is_rocm_build)['"] ?[,:] ?"""
    r"""(?:['"](?P<v>\d{1,2}(?:\.\d{1,2}){0,2})['"]|(?P<b>True|False)\b)"""
)
"""A member of ``tf.sysconfig.get_build_info()`` as Python prints it: the dict (``'cuda_version': '11.2'``)
or the OrderedDict's pairs (``('cuda_version', '11.2'),``). Windows builds name DLL suffixes there
(``'cuda_version': '64_112'``), which are no version and are not read."""
_AMD_PROSE = re.compile(r"\b(?:AMD|Radeon|ROCm)\b")
"""A gfx target counts as an AMD GPU in prose only beside one of these words ("AMD APU (gfx1150, ...)")."""
_DIFFERENT_DEVICES = re.compile(r"Detected different devices in the system: (?P<names>[^.]{2,400})\.")
"""vLLM's warning on a host with GPUs of several models: it names each one."""
_TEGRASTATS = re.compile(r"^RAM \d{1,7}/\d{1,7}MB .{0,400}\bGR3D_FREQ \d{1,3}%")
"""A tegrastats sample: only L4T on a Jetson prints it (GR3D is the Jetson's integrated NVIDIA GPU)."""
_JSON_NAME = re.compile(r'^"_name" ?: ?"(?P<name>[^"]{2,80})",?$')
"""``system_profiler -json``'s item name: the GPU's when a Metal key follows it."""
_SEGMENT = re.compile(r"[;,()•]")
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
_BARE_GEFORCE = re.compile(
    r"\b(?:a|an|my|the|one|two|dual|single)\s(?P<n>(?:10|20|30|40|50)[5-9]0)(?P<ti>\s?Ti)?\s"
    r"(?:GPUs?|graphics card|video card)\b",
    re.I,
)
"""A GeForce named by its model number alone ("I ... have a 5080 GPU"): only the x050-x090 numbers of the
GTX 10 and RTX 20-50 series, after an article and before "GPU", so AMD's 5700/6800/7900, a year or a
price are not read as one."""
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


def inline(reader: Reader, number: int, line: str, lower: str) -> None:
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
    if "torch: " in lower and (unsloth := _UNSLOTH_TORCH.search(line)):
        _unsloth_torch(reader, number, unsloth)
        return
    if "num gpus = " in lower and (unsloth_gpu := _UNSLOTH_GPU.search(line)):
        name = gpu_name(unsloth_gpu.group("name"))
        if name:
            reader.add("gpu", name, number)
            return
    # xFormers' "built for" block ("PyTorch 2.6.0+cu124 with CUDA 1204 (you have 2.8.0...)") names the
    # torch and Python the extension was built for first: the installed ones are what "you have" says.
    built_for = "(you have " in line
    if "torch" in lower:
        match = TORCH_INLINE.match(line)
        if match and not built_for:
            reader.add("torch", torch_of(match), number)
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
        found = VERSION_AT.fullmatch(line.strip("'\""))
        if found:
            reader.add("torch", found.group("v"), number)
            return
    if line.startswith("Python "):
        match = PYTHON_INLINE.match(line)
        if match and not built_for:
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
    if ("_version'" in line or "_build'" in line) and (tf_build := list(_TF_BUILD.finditer(line))):
        for member in tf_build:
            reader.add("tf-build", member.group("v") or member.group("b"), number, member.group("key"))
        return
    if (".x" in lower or ".*" in line) and not reader.facts_on(number):
        for wildcard in _SERIES.finditer(line):
            if wildcard.group("name").lower() in KNOWN_PACKAGES - {"torch"}:
                reader.add("package", wildcard.group("v"), number, wildcard.group("name").lower())
    if " version " in lower and not reader.facts_on(number):
        for named in _NAMED_VERSION.finditer(line):
            # torch has its own patterns (a bare version there must not look like a build)
            if named.group("name").lower() in KNOWN_PACKAGES - {"torch"}:
                reader.add("package", named.group("v"), number, named.group("name").lower())
    if "gfx" in lower and (gfx := GFX.search(line)) and _AMD_PROSE.search(line):
        reader.add("amd-gpu", AMD_UNNAMED, number, gfx.group(0))
    if "different devices" in lower and (listed := _DIFFERENT_DEVICES.search(line)):
        for part in listed.group("names").split(",")[:16]:
            name = gpu_name(part.strip())
            if name:
                reader.add("gpu", name, number)
    if line.startswith('"_name"') and (json_name := _JSON_NAME.match(line)):
        reader.json_name = (json_name.group("name"), number)
        return
    if listing(reader, number, line):
        return
    if "GR3D_FREQ" in line and _TEGRASTATS.match(line):
        reader.add("nvidia-driver-present", "tegrastats (a Jetson's GPU)", number)
    if "cuda toolkit detected" in lower:
        reader.add("nvidia-driver-present", "nVidia CUDA toolkit detected", number)
    if "compute capability" in lower or "compute=" in lower:
        gpu_lines(reader, number, line)
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
        for more, more_version in more_rows(line[aligned.end("v") :]):
            reader.add("package", more_version, number, more)
        return
    if len(line) <= 100 and not reader.facts_on(number):
        name = gpu_name(line)
        if name:
            reader.add("gpu", name, number)
    if " gpu" in lower or " card" in lower:
        bare = _BARE_GEFORCE.search(line)
        if bare and not any(f.line == number and f.kind == "gpu" for f in reader.facts[-4:]):
            series = "GTX" if bare.group("n").startswith("10") else "RTX"
            suffix = " Ti" if bare.group("ti") else ""
            reader.add("gpu", f"NVIDIA GeForce {series} {bare.group('n')}{suffix}", number)
    if built_for:
        return
    if _SEGMENT.search(line) and not any(f.line == number and f.kind == "torch" for f in reader.facts[-8:]):
        _segments(reader, number, line)


def _unsloth_torch(reader: Reader, number: int, banner: re.Match[str]) -> None:
    """Unsloth's torch line: the torch build, the CUDA it was built with and the GPU's capability."""
    reader.add("torch", banner.group("v"), number)
    reader.add("torch-cuda", banner.group("cuda"), number)
    reader.add("cc", banner.group("cc"), number)


def _yolo_banner(reader: Reader, number: int, banner: re.Match[str]) -> None:
    """Ultralytics' banner: python, torch and the CUDA device torch opened (its name as torch reports it)."""
    reader.add("python", banner.group("python"), number)
    reader.add("torch", banner.group("v"), number)
    gpu = banner.group("gpu")
    name = gpu_name(gpu) if gpu else None
    if name:
        reader.add("gpu", name, number)


def _segments(reader: Reader, number: int, line: str) -> None:
    """A sentence listing its stack ("Python 3.8.11, torch 1.9.1, CUDA Version: 12.0"): each part alone."""
    for part in _SEGMENT.split(line, maxsplit=20):
        part = part.strip()
        if not part or len(part) > 80:
            continue
        kv = KEY_VALUE.match(part) if ":" in part else None
        if kv is not None:
            key = " ".join(kv.group("key").lower().split()).rstrip(" .:")
            if key != "name" and key_value(reader, key, kv.group("value").strip(), number):
                continue
        torch = TORCH_INLINE.match(part)
        python = PYTHON_INLINE.match(part)
        if torch:
            reader.add("torch", torch_of(torch), number)
        elif python:
            reader.add("python", python.group("v"), number)
        elif part.lower().startswith("cuda"):
            cuda = CUDA_NUMBER.search(part[:30])
            if cuda:
                reader.add("cuda-stated", cuda.group("v"), number)
