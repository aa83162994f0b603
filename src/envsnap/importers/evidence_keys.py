"""Facts from ``key: value`` lines of a paste (evidence.py): collect_env's keys and their kin in other
tools' environment dumps, issue templates, ``pip show``, ``sw_vers``, hipconfig and macOS's profiler."""

from __future__ import annotations

import re

from envsnap.importers.evidence_base import (
    AMD_GPU,
    APPLE_GPU,
    CUDA_NUMBER,
    GFX,
    INTEL_GPU_WORD,
    KNOWN_PACKAGES,
    Reader,
    gpu_name,
    more_rows,
    version_in,
)

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
_PKG_KEY_SUFFIX = re.compile(r" version$")
_PACKAGE_FOUND = re.compile(r"^Package version found: (?P<name>[\w.-]{1,60}) (?P<v>\S{1,60})$")
_DEVICE_CUDA = re.compile(r"^cuda:(?P<i>\d{1,2}) (?P<name>.{2,80}?)(?: : [\w-]{1,30})?$")
_TORCH_CONFIG_ARCH = re.compile(r"arch=compute_\d{2,3}a?,code=(?P<arch>(?:sm|compute)_\d{2,3}a?)")
"""``torch.__config__.show()`` ("PyTorch built with:", in detectron2's and mmdet's environment reports):
torch's own CUDA runtime and its ``-gencode`` list: the kernels (``sm_XX``) and the PTX (``compute_XX``)
it ships."""
_CUDA_HOME_VERSION = re.compile(r"(?:[/\\]cuda-|[/\\]CUDA[/\\]v)(?P<v>\d{1,2}\.\d{1,2})(?:[/\\]|$)", re.I)
"""A CUDA_HOME that names its toolkit's version: ``/usr/local/cuda-11.6``, ``...\\CUDA\\v11.6``."""
_ARCH_TUPLE = re.compile(r"\bArch \((?P<major>\d{1,2}), (?P<minor>\d)\)")
_NVCC_RELEASE = re.compile(r"release (?P<v>\d{1,2}\.\d{1,2}), V(?P<full>\d{1,2}\.\d{1,2}\.\d{1,4})")
_NVCC_BUILD = re.compile(r"Build cuda_(?P<major>\d{1,2})\.(?P<minor>\d{1,2})")
_TORCH_BACKEND = re.compile(r"^nVidia CUDA (?P<v>\d{1,2}\.\d{1,2})\b")
_SW_VERS_NAMES = frozenset({"macos", "mac os x"})
_MACOS_VERSION = re.compile(r"\d{2}(?:\.\d{1,2}){0,2}")
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
_MPS_KEYS = frozenset({"torch.backends.mps", "torch.mps", "mps available", "is mps available"})
"""A printed answer of ``torch.backends.mps.is_available()`` ("torch.backends.mps: True")."""
_HIP_PATH_KEYS = frozenset({"rocm_path", "hip_path", "hcc_home", "hip_clang_path"})
_ROCM_DIR = re.compile(r"^(?P<path>/opt/rocm(?:-(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,2})?))?)(?:/|$)")
_PIP_SHOW_REQUIRES_CUDA = re.compile(r"\bnvidia-cuda-runtime-cu(?P<major>\d{2})\b")
_TARGET_TRIPLE = re.compile(
    r"(?:x86_64|aarch64|arm64|i686|powerpc64le|ppc64le|s390x|riscv64)-[a-z0-9_]+-(?:linux|windows|darwin)"
    r"[a-z0-9_-]*"
)
"""A target triple (``x86_64-unknown-linux-gnu``) as the value of ``Target:``: the platform a native
tool runs on (text-generation-launcher --env prints its build target first; clang/hipcc --version too)."""


def key_value(reader: Reader, key: str, value: str, number: int) -> bool:
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
        found = version_in(value)
        if found:
            reader.add("torch", found, number)
            if key == "torch":  # a pip list row: more rows may follow on the line
                for more, version in more_rows(value[value.find(found) + len(found) :]):
                    reader.add("package", version, number, more)
        return found is not None
    if key in _TORCH_CUDA_KEYS:
        match = CUDA_NUMBER.match(value)
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
            match = CUDA_NUMBER.match(value[5:])
            if match:
                reader.add("extension-cuda", match.group("v"), number, "detectron2")
        else:
            match = CUDA_NUMBER.match(value)
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
        match = CUDA_NUMBER.search(value[:40])
        if match:
            reader.add("cuda-stated", match.group("v"), number)
        return True
    if key in _PYTHON_KEYS:
        match = re.match(r"(?P<v>\d\.\d{1,2}(?:\.\d{1,3})?)", value)
        # xFormers' "Python  3.10.16 (you have 3.10.12)": the first is the Python it was built for.
        if match and "(you have " not in value:
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
        name = gpu_name(value)
        if name:
            cc = _ARCH_TUPLE.search(value)
            reader.add("gpu", name, number, f"{cc.group('major')}.{cc.group('minor')}" if cc else "")
        elif AMD_GPU.match(value):
            gfx = GFX.search(value)
            reader.add("amd-gpu", value[:80], number, gfx.group(0) if gfx else "")
        elif apple := APPLE_GPU.match(value):
            reader.add("mac-gpu", apple.group(0), number)
        elif value.startswith("Intel") and INTEL_GPU_WORD.search(value):
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
        found = version_in(value)
        if found:
            reader.add("package", found, number, name)
            for more, version in more_rows(value[value.find(found) + len(found) :]):
                reader.add("package", version, number, more)
        return found is not None
    return False
