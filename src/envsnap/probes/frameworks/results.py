"""Turn the raw answers of ``_framework_probe.py`` into model sections.

The child only asks questions (it runs in the target interpreter, stdlib only); everything that
interprets an answer lives here, as pure functions the tests call directly: version integers to
dotted versions, ``torch.__config__.show()`` to a small dict, a mapped library's path to its origin,
a ``+cu121`` local version tag to a CUDA version.

The child's JSON is ours, but values in it come from whatever build is installed (a fake, a broken
or a future one), so every field is read defensively: a value of the wrong type is treated as
unreported, never as an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from packaging.utils import canonicalize_name
from packaging.version import Version

from envsnap.snapshot.model import (
    CompanionBuild,
    JaxInfo,
    LoadedLibrary,
    OnnxruntimeInfo,
    TensorflowInfo,
    TorchAvailability,
    TorchDevice,
    TorchInfo,
)

LibraryOrigin = Literal["wheel", "toolkit", "conda", "system", "compat", "other"]

_TOOLKIT_ROOTS = re.compile(r"^/(usr/local/cuda[^/]*|opt/rocm[^/]*|opt/intel/oneapi|opt/nvidia)/")
_SYSTEM_ROOTS = re.compile(r"^/(usr/)?lib(32|64|x32)?/")
# First-level lines of torch.__config__.show() worth keeping, by their leading words (and whether the
# words are part of the value, as in "GCC 13.3"). The runtime
# "CPU capability usage" line is left out on purpose: it describes the host's CPU, not the build,
# and would make two hosts with one stack fingerprint differently.
_CONFIG_LINES = (
    (re.compile(r"^(GCC|clang|Clang|MSVC|Apple clang) "), "compiler", True),
    (re.compile(r"^C\+\+ Version: "), "cxx_standard", False),
    (re.compile(r"^CUDA Runtime "), "cuda_runtime", False),
    (re.compile(r"^Built with CUDA Runtime "), "cuda_runtime_built", False),
    (re.compile(r"^NVCC architecture flags: "), "nvcc_arch_flags", False),
    (re.compile(r"^Cu[dD]NN "), "cudnn", False),
    (re.compile(r"^Built with CuDNN "), "cudnn_built", False),
    (re.compile(r"^HIP Runtime "), "hip_runtime", False),
    (re.compile(r"^MIOpen "), "miopen", False),
    (re.compile(r"^Magma "), "magma", False),
    (re.compile(r"^Intel\(R\) (oneAPI )?Math Kernel Library Version "), "mkl", False),
    (re.compile(r"^Intel\(R\) MKL-DNN "), "mkldnn", False),
    (re.compile(r"^OpenMP "), "openmp", False),
)
# Build settings that say what the build can use; the rest (warning flags, paths of the CI box) is noise.
_BUILD_SETTINGS = (
    "BLAS_INFO", "LAPACK_INFO", "BUILD_TYPE", "CXX_COMPILER", "CUDA_VERSION", "CUDNN_VERSION",
    "USE_CUDA", "USE_CUDNN", "USE_CUSPARSELT", "USE_ROCM", "USE_XPU", "USE_NCCL", "USE_XCCL", "USE_MPI",
    "USE_GLOO", "USE_MKL", "USE_MKLDNN", "USE_OPENMP",
)  # fmt: skip
# The CXX_FLAGS that decide whether a compiled extension can link against this torch.
_ABI_FLAG = re.compile(r"^(-D_GLIBCXX_USE_CXX11_ABI=\d|-fabi-version=\d+|-std=\S+)$")
_SETTING_SPLIT = re.compile(r", (?=[A-Z][A-Z0-9_]*=)")
_LOCAL_CUDA = re.compile(r"(?:^|\.)(cuda|cu)(\d+)(?=$|\.)")
_LOCAL_ROCM = re.compile(r"(?:^|\.)rocm(\d+(?:\.\d+)*)")
_NAME_CUDA = re.compile(r"-cu(\d+)$")


def text(value: Any) -> str | None:
    """A non-empty string answer, else None."""
    return value if isinstance(value, str) and value else None


def strings(value: Any) -> tuple[str, ...] | None:
    """A list of strings answer as a tuple, else None."""
    if not isinstance(value, list):
        return None
    return tuple(str(item) for item in value)


def flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def integer(value: Any) -> int | None:
    """An integer answer (bools are not integers here), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cudnn_version(code: int) -> str:
    """``torch.backends.cudnn.version()`` as "9.1.0" (cuDNN 9: M*10000+m*100+p; before: M*1000+m*100+p)."""
    major, rest = divmod(code, 10000) if code >= 90000 else divmod(code, 1000)
    minor, patch = divmod(rest, 100)
    return f"{major}.{minor}.{patch}"


def miopen_version(code: int) -> str:
    """The MIOpen integer torch reports on ROCm (M*1000000+m*1000+p, torch/csrc/cuda/shared/cudnn.cpp)."""
    major, rest = divmod(code, 1000000)
    minor, patch = divmod(rest, 1000)
    return f"{major}.{minor}.{patch}"


def nccl_version(value: Any) -> str | None:
    """``torch.cuda.nccl.version()``: a (major, minor, patch[, suffix]) tuple, or an int on old releases."""
    if isinstance(value, list) and len(value) >= 3 and all(isinstance(part, int) for part in value[:3]):
        suffix = str(value[3]) if len(value) > 3 else ""
        return ".".join(str(part) for part in value[:3]) + suffix
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        # NCCL_VERSION_CODE: M*1000+m*100+p before 2.9, M*10000+m*100+p since.
        major, rest = divmod(value, 10000) if value >= 10000 else divmod(value, 1000)
        minor, patch = divmod(rest, 100)
        return f"{major}.{minor}.{patch}"
    return None


def parse_torch_config(show: str) -> dict[str, str]:
    """The build facts of ``torch.__config__.show()``: compiler, GPU runtime, arch flags, BLAS, switches."""
    config: dict[str, str] = {}
    for line in show.splitlines():
        item = line.strip()
        if not item.startswith("- "):
            continue
        item = item[2:].strip()
        if item.startswith("Build settings:"):
            config.update(_build_settings(item[len("Build settings:") :]))
            continue
        for pattern, key, whole_line in _CONFIG_LINES:
            match = pattern.match(item)
            if match is not None and key not in config:
                value = item if whole_line else item[match.end() :].strip()
                # "2024.2-Product Build 20240605 for Intel(R) 64 architecture applications"
                config[key] = value.split(" for ", 1)[0] if key == "mkl" else value
                break
    return config


def _build_settings(settings: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in _SETTING_SPLIT.split(settings.strip().rstrip(",")):
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip().rstrip(",").strip()
        if key in _BUILD_SETTINGS and value:
            found[key] = value
        elif key == "CXX_FLAGS":
            abi = [token for token in value.split() if _ABI_FLAG.match(token)]
            if abi:
                found["CXX_FLAGS_ABI"] = " ".join(abi)
    return found


def library_origin(path: str, conda_prefixes: Iterable[str]) -> LibraryOrigin:
    """Where a mapped library comes from, judged by its real path (docs/compat-rules.md B5.4).

    Order matters: a forward-compat ``libcuda`` under ``/usr/local/cuda-12.4/compat/`` is compat, not
    toolkit; a pip wheel inside a conda env (``$CONDA_PREFIX/lib/python3.x/site-packages/nvidia``) is
    a wheel, not conda.
    """
    parts = path.split("/")
    if "compat" in parts[:-1]:
        return "compat"
    if "site-packages" in parts or "dist-packages" in parts:
        return "wheel"
    for prefix in conda_prefixes:
        if prefix and path.startswith(prefix.rstrip("/") + "/lib/"):
            return "conda"
    if _TOOLKIT_ROOTS.match(path):
        return "toolkit"
    if _SYSTEM_ROOTS.match(path):
        return "system"
    return "other"


def local_build(name: str, version: str) -> tuple[str | None, str | None]:
    """CUDA and HIP a wheel says it was built for: ``+cu121`` → ("12.1", None), ``+rocm6.2`` → (None, "6.2").

    Old jaxlib tags (``+cuda12.cudnn89``) name the CUDA major only; TensorRT names it in the
    distribution (``tensorrt-cu12``).
    """
    try:
        local = Version(version).local or ""
    except ValueError:  # InvalidVersion, or a number past int()'s digit limit
        local = ""
    cuda: str | None = None
    if (match := _LOCAL_CUDA.search(local)) is not None:
        digits = match.group(2)
        cuda = digits if match.group(1) == "cuda" or len(digits) < 2 else f"{digits[:-1]}.{digits[-1]}"
    elif (match := _NAME_CUDA.search(canonicalize_name(name))) is not None:
        cuda = match.group(1)
    rocm = _LOCAL_ROCM.search(local)
    return cuda, None if rocm is None else rocm.group(1)


def torch_info(answer: Mapping[str, Any], environ: Mapping[str, str]) -> TorchInfo:
    """The torch section from the child's answer (status ok)."""
    hip = text(answer.get("hip"))
    code = integer(answer.get("cudnn_int"))
    code = code if code is not None and code > 0 else None
    config_text = text(answer.get("config"))
    config = parse_torch_config(config_text) if config_text else {}
    abi = flag(answer.get("cxx11_abi"))
    if abi is not None:
        config["cxx11_abi"] = "true" if abi else "false"
    available = answer.get("available")
    available = available if isinstance(available, Mapping) else {}
    conda_prefixes = [environ.get("CONDA_PREFIX", "")]
    if answer.get("conda_prefix") is True and isinstance(answer.get("prefix"), str):
        conda_prefixes.append(answer["prefix"])
    paths = strings(answer.get("loaded_libraries"))
    libraries = None
    if paths is not None:
        libraries = tuple(
            LoadedLibrary(
                name=path.rsplit("/", 1)[-1], path=path, origin=library_origin(path, conda_prefixes)
            )
            for path in paths
        )
    return TorchInfo(
        status="ok",
        version=text(answer.get("version")),
        git_version=text(answer.get("git_version")),
        debug=flag(answer.get("debug")),
        cuda=text(answer.get("cuda")),
        hip=hip,
        xpu=text(answer.get("xpu")),
        cudnn=cudnn_version(code) if code is not None and hip is None else None,
        miopen=miopen_version(code) if code is not None and hip is not None else None,
        nccl=nccl_version(answer.get("nccl")),
        arch_list=strings(answer.get("arch_list")),
        available=TorchAvailability(
            cuda=flag(available.get("cuda")), xpu=flag(available.get("xpu")), mps=flag(available.get("mps"))
        ),
        devices=_torch_devices(answer.get("devices")),
        config=config or None,
        loaded_libraries=libraries,
        location=text(answer.get("location")),
        errors=strings(answer.get("errors")) or None,
        warnings=strings(answer.get("warnings")) or None,
    )


def _torch_devices(value: Any) -> tuple[TorchDevice, ...] | None:
    if not isinstance(value, list):
        return None
    devices = []
    for item in value:
        index = integer(item.get("index")) if isinstance(item, Mapping) else None
        if index is None or not text(item.get("type")):
            continue
        memory = integer(item.get("memory_total_bytes"))
        devices.append(
            TorchDevice(
                index=index,
                type=item["type"],
                name=text(item.get("name")),
                capability=text(item.get("capability")),
                gcn_arch=text(item.get("gcn_arch")),
                memory_total_bytes=memory,
            )
        )
    return tuple(devices)


def jax_info(answer: Mapping[str, Any]) -> JaxInfo:
    """The jax section from the child's answer (status ok)."""
    return JaxInfo(
        status="ok",
        version=text(answer.get("version")),
        jaxlib_version=text(answer.get("jaxlib_version")),
        backend=text(answer.get("backend")),
        devices=strings(answer.get("devices")),
        plugins=strings(answer.get("plugins")),
        errors=strings(answer.get("errors")) or None,
        warnings=strings(answer.get("warnings")) or None,
    )


def tensorflow_info(answer: Mapping[str, Any]) -> TensorflowInfo:
    """The tensorflow section; build-info values become strings (lists comma-separated)."""
    raw = answer.get("build_info")
    build_info = None
    if isinstance(raw, Mapping):
        build_info = {
            str(key): ", ".join(str(item) for item in value) if isinstance(value, list) else str(value)
            for key, value in sorted(raw.items())
        }
    return TensorflowInfo(
        status="ok",
        version=text(answer.get("version")),
        build_info=build_info,
        gpus=strings(answer.get("gpus")),
        errors=strings(answer.get("errors")) or None,
        warnings=strings(answer.get("warnings")) or None,
    )


def onnxruntime_info(answer: Mapping[str, Any]) -> OnnxruntimeInfo:
    """The onnxruntime section; with several providing distributions, the one whose files are on disk wins."""
    listed = answer.get("distributions")
    found = [item for item in listed or [] if isinstance(item, Mapping) and text(item.get("name"))]
    installed = [item for item in found if item.get("installed") is True]
    chosen = installed[0] if len(installed) == 1 else found[0] if len(found) == 1 else None
    found.sort(key=lambda item: canonicalize_name(str(item["name"])))
    listing = [f"{item['name']}=={item.get('version')}" for item in found]
    return OnnxruntimeInfo(
        status="ok",
        version=text(answer.get("version")),
        distribution=None if chosen is None else str(chosen["name"]),
        distributions=tuple(listing) if len(listing) > 1 else None,
        device=text(answer.get("device")),
        providers=strings(answer.get("providers")),
        errors=strings(answer.get("errors")) or None,
        warnings=strings(answer.get("warnings")) or None,
    )


def companions(answer: Mapping[str, Any]) -> tuple[CompanionBuild, ...] | None:
    """Companion builds from installed metadata, with the CUDA/HIP their version tags name."""
    items = answer.get("companions")
    if not isinstance(items, list):
        return None
    builds = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        name, version = text(item.get("name")), text(item.get("version"))
        if name and version:
            cuda, hip = local_build(name, version)
            builds.append(CompanionBuild(name=name, version=version, cuda=cuda, hip=hip))
    return tuple(builds)
