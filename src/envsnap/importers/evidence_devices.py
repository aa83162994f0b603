"""Facts from the device listings pasted beside a report (evidence.py): sycl-ls and ggml's SYCL lists,
ggml's Vulkan devices, xpu-smi, and the GPU lines of llama.cpp, ollama and CUDA samples."""

from __future__ import annotations

import re

from envsnap.importers.evidence_base import AMD_GPU, GFX, INTEL_GPU_WORD, Reader, gpu_name

_LLAMA_DEVICE = re.compile(
    r"^Device (?P<i>\d{1,2}): (?P<name>.{2,80}?), compute capability (?P<cc>\d{1,2}\.\d)"
    r"(?:, VMM: (?:yes|no))?(?:, ID: [\w:.-]{1,40})?$"
)
"""ggml's CUDA device line; since 2024 it ends with ``, VMM: yes`` (virtual memory management), and
later builds add ``, ID: <pci bus id>``."""
_OLLAMA_GPU = re.compile(r'\bcompute=(?P<cc>\d{1,2}\.\d)\b.{0,200}?\bname="(?P<name>[^"]{2,80})"')
_ARCH_EQ = re.compile(r"\(arch=(?P<cc>\d{1,2}\.\d)\)")
_CC_INLINE = re.compile(r"(?:^|\] )Compute Capability (?P<cc>\d{1,2}\.\d)$")


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
_VULKAN_DRIVER = re.compile(r" \((?:[^()]*driver|NVIDIA|radv|RADV[^()]*)\)$")


def _vulkan_device(reader: Reader, number: int, rest: str) -> None:
    """A GPU ggml's Vulkan backend lists, under its vendor (its name says which): Vulkan states no compute
    capability or gfx target in a form the CUDA/ROCm readers take, only the product and its driver."""
    name = _VULKAN_DRIVER.sub("", rest.strip())
    if name.startswith("Intel"):
        reader.add("intel-gpu", name[:80], number)
    elif AMD_GPU.match(name) or "AMD" in name:
        gfx = GFX.search(rest.lower())
        reader.add("amd-gpu", name[:80], number, gfx.group(0) if gfx else "")
    elif (nvidia := gpu_name(name)) is not None:
        reader.add("gpu", nvidia, number)


def _sycl_device(reader: Reader, number: int, backend: str, kind: str, sycl: re.Match[str]) -> None:
    """One device a SYCL listing names (sycl-ls, ggml's SYCL list or table): the backend and type always (a
    list with no GPU is still a fact), and a GPU under its vendor, as ggml's Vulkan lines are (the same GPU
    under two backends is one device). ggml's old list states no type: its CPUs and FPGA emulators are
    told apart by name, only GPU product names count."""
    device = sycl.group("device").strip()
    reader.add("sycl-device", f"{backend}:{kind}" if kind else backend, number, device[:80])
    if kind not in ("gpu", ""):
        return
    groups = sycl.groupdict()
    if device.startswith("Intel") and INTEL_GPU_WORD.search(device):
        reader.add("intel-gpu", device[:80], number)
    elif backend == "hip" or AMD_GPU.match(device):
        reader.add("amd-gpu", device[:80], number, groups.get("gfx") or "")
    elif (nvidia := gpu_name(device)) is not None:
        cc = groups.get("version") if backend == "cuda" else None
        reader.add("gpu", nvidia, number, cc if cc and re.fullmatch(r"\d{1,2}\.\d", cc) else "")


def gpu_lines(reader: Reader, number: int, line: str) -> None:
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
        name = gpu_name(line)
        if name:
            reader.add("gpu", name, number, arch.group("cc"))


def listing(reader: Reader, number: int, line: str) -> bool:
    """Facts from a line of a device listing; True for a SYCL device row (nothing more is on it)."""
    if line.startswith("[") and (sycl := _SYCL_DEVICE.match(line)):
        _sycl_device(reader, number, sycl.group("backend"), sycl.group("type"), sycl)
        return True
    if line.startswith("|") and "]|" in line and (row := _GGML_SYCL_ROW.match(line)):
        _sycl_device(reader, number, row.group("backend"), row.group("type"), row)
        return True
    if line.startswith("Device ") and (ggml := _GGML_SYCL_DEVICE.match(line)):
        _sycl_device(reader, number, "ggml-sycl", "", ggml)
        return True
    if "Device Name: " in line and (xpu := _XPU_SMI_NAME.match(line)):
        reader.add("intel-gpu", xpu.group("name"), number)
    if "| uma: " in line and (vulkan := _VULKAN_DEVICE.match(line)):
        _vulkan_device(reader, number, vulkan.group("rest"))
    return False
