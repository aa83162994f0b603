"""Evidence that a project already runs on a target: its own backend folders and files.

A ``hip/``, ``rocm/``, ``*_ck/`` (Composable Kernel) or ``hip_fmha/`` folder, ``.hip`` sources, an
``xpu/`` or ``sycl/`` backend, an ``mps/`` or ``metal/`` backend, ``.metal`` shaders: a project that
ships these has been ported, and its CUDA code is the CUDA half of a multi-backend build. The
scanners add evidence from contents (preprocessor branches, HIP/SYCL APIs, build switches, dispatch
tables); this module reads the layout alone.
"""

from __future__ import annotations

import functools
import itertools
import re

_FOLDER = {
    "rocm": re.compile(
        r"^(?:hip|rocm|amd|hipify|hip_\w+|\w+_hip|\w+-hip|ck|\w+_ck|ck_\w+|composable_kernel|aiter)$"
    ),
    "xpu": re.compile(r"^(?:xpu|sycl|\w+_xpu|xpu_\w+|\w+-sycl|\w+_sycl|sycl_\w+|dpcpp|oneapi|intel_gpu)$"),
    "mps": re.compile(r"^(?:mps|metal|\w+_mps|mps_\w+|\w+-metal|\w+_metal|metal_\w+|apple)$"),
}
_FILE = {
    "rocm": re.compile(r"\.(?:hip|hiph)$|(?:^|[_-])(?:hip|rocm|amd)(?:[_.-])"),
    "xpu": re.compile(r"\.dp\.(?:cpp|hpp)$|(?:^|[_-])(?:xpu|sycl)(?:[_.-])"),
    "mps": re.compile(r"\.(?:metal|mm)$|(?:^|[_-])(?:mps|metal)(?:[_.-])"),
}


ORT_CUDA_PROVIDERS = {"CUDAExecutionProvider": "CUDA", "TensorrtExecutionProvider": "TensorRT"}
"""ONNX Runtime execution providers that exist only in its NVIDIA builds (onnxruntime-gpu)."""
ORT_TARGET_PROVIDERS = {
    "ROCMExecutionProvider": "rocm",
    "MIGraphXExecutionProvider": "rocm",
    "OpenVINOExecutionProvider": "xpu",
    "CoreMLExecutionProvider": "mps",
}
"""ONNX Runtime execution providers for the other targets: a project naming one has a path there."""
ORT_OTHER_ACCELERATORS = {
    "DmlExecutionProvider": "DirectML",
    "CANNExecutionProvider": "CANN",
    "QNNExecutionProvider": "QNN",
    "WebGpuExecutionProvider": "WebGPU",
    "VitisAIExecutionProvider": "Vitis AI",
}
"""ONNX Runtime execution providers of accelerators that are none of the targets (DirectML on Windows, Ascend,
Qualcomm, WebGPU, AMD's Vitis AI NPUs): a project naming one picks its provider per accelerator."""


def layout_evidence(relative: str) -> list[tuple[str, str]]:
    """``(target kind, reason)`` for each backend this path's folders or file name belong to."""
    folder, _, name = relative.rpartition("/")
    by_folder = _folder_evidence(folder)
    found: list[tuple[str, str]] = []
    for kind in _FOLDER:
        if kind in by_folder:
            found.append((kind, f"{kind} backend folder {by_folder[kind]}/"))
        elif backend_file(name, kind):
            found.append((kind, f"{kind} backend file {name}"))
    return found


def backend_file(name: str, kind: str) -> bool:
    """Whether a file name is a backend source of the target kind (``knn.metal``, ``_ball_query_mps.py``)."""
    lower = name.lower()
    return bool(_FILE_WORDS.search(lower) and _FILE[kind].search(lower))


_FILE_WORDS = re.compile(r"hip|rocm|amd|xpu|sycl|mps|metal|\.mm$|\.dp\.")
"""A file name none of these are in matches no ``_FILE`` pattern (one search instead of three)."""


@functools.lru_cache(maxsize=4096)
def _folder_evidence(folder: str) -> dict[str, str]:
    """Per target kind, the first folder on this path that is its backend (a tree's files share folders)."""
    parts = folder.split("/") if folder else []
    found: dict[str, str] = {}
    for kind, pattern in _FOLDER.items():
        match = next((p for p in parts if pattern.match(p.lower())), None)
        if match is not None:
            found[kind] = match
    return found


def backend_folder(name: str) -> str | None:
    """The target kind a folder name is the backend of (``mps`` -> mps, ``sycl`` -> xpu), or None."""
    return next((kind for kind, pattern in _FOLDER.items() if pattern.match(name.lower())), None)


_CUDA_FOLDER = re.compile(r"^(?:cuda|\w+_cuda|cuda_\w+)$")
_CUDA_FILE = re.compile(r"(?:^|[_-])cuda(?:[_.-])")


def is_cuda_backend(relative: str) -> bool:
    """Whether a path is the CUDA member of a per-device layout (``platforms/cuda.py``,
    ``accelerator/cuda_accelerator.py``, ``backends/cuda/``): the counterpart of the backends above."""
    parts = relative.split("/")
    return any(_CUDA_FOLDER.match(p.lower()) for p in parts[:-1]) or bool(
        _CUDA_FILE.search(parts[-1].lower())
    )


_GPU_WORD = re.compile(r"(?:^|[_-])(gpu)(?=[_.-])")
_DEVICE_WORDS = {
    "hip": "rocm",
    "rocm": "rocm",
    "amd": "rocm",
    "xpu": "xpu",
    "sycl": "xpu",
    "mps": "mps",
    "metal": "mps",
}


def gpu_member_siblings(relative: str, files: set[str]) -> frozenset[str]:
    """The targets whose member of a per-device layout sits beside this ``gpu`` member, or nothing.

    composer 0.32's ``devices/device_gpu.py`` beside ``device_mps.py`` (#22 blind round 26): where the
    layout has a member per device and names one of them for the target, the generic ``gpu`` member is
    the CUDA one (torch.cuda, so also ROCm's), like ``cuda_accelerator.py`` beside ``mps_accelerator.py``.
    Only a sibling named exactly as this file with the device word in place of ``gpu`` counts.
    """
    folder, _, name = relative.rpartition("/")
    match = _GPU_WORD.search(name.lower())
    if match is None:
        return frozenset()
    start, end = match.span(1)
    prefix, suffix = name[:start], name[end:]
    kinds = {
        kind
        for word, kind in _DEVICE_WORDS.items()
        if (f"{folder}/" if folder else "") + prefix + word + suffix in files
    }
    return frozenset(kinds)


def other_backend(relative: str, target_kind: str) -> str | None:
    """The other device whose member of a per-device layout this path is, or None.

    vLLM 0.11's ``platforms/rocm.py`` beside ``platforms/xpu.py`` (#22 blind round 11): the ROCm member
    runs only where ROCm is selected, as the CUDA member (``is_cuda_backend``) runs only on CUDA. A path
    that is the target's own member, or no member, gives None.
    """
    kinds = [kind for kind, _ in layout_evidence(relative)]
    if not kinds or target_kind in kinds:
        return None
    return kinds[0]


# A code generator with one class per backend (tinygrad 0.14's renderer/cstyle.py: CUDARenderer beside
# HIPRenderer, MetalRenderer, OpenCLRenderer; #22 blind round 15): the words of a class name that say which
# backend the class is. OpenCL is a path on Intel GPUs (Intel's GPU driver ships the OpenCL runtime:
# https://github.com/intel/compute-runtime) and on AMD GPUs (ROCm's CLR ships it beside HIP:
# https://github.com/ROCm/clr); Apple deprecated OpenCL, so it is no path for MPS.
_CLASS_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z][a-z]*|[a-z]+|\d+")
_CLASS_BACKENDS: dict[str, tuple[str, ...]] = {
    "cuda": ("cuda",),
    "nvcc": ("cuda",),
    "nvrtc": ("cuda",),
    "ptx": ("cuda",),
    "hip": ("rocm",),
    "hipcc": ("rocm",),
    "amd": ("rocm",),
    "rocm": ("rocm",),
    "metal": ("mps",),
    "mps": ("mps",),
    "sycl": ("xpu",),
    "xpu": ("xpu",),
    "opencl": ("xpu", "rocm"),
}
# A Python GPU API that is not one vendor's (reikna 0.9 runs its kernels through PyOpenCL or PyCUDA, one
# optional extra each; #22 blind round 17): importing it is a path on the GPUs whose drivers ship its runtime,
# the same set as the OpenCL class words above. Weak evidence (a device path, not a port of compiled code).
PORTABLE_GPU_APIS: dict[str, tuple[str, tuple[str, ...]]] = {
    "pyopencl": ("PyOpenCL", _CLASS_BACKENDS["opencl"]),
    # OpenVINO's own runtime compiles models for Intel GPUs (its "GPU" device plugin): rtmlib 0.0.16 maps
    # device='gpu' to it (#22 blind round 49). https://docs.openvino.ai/2025/openvino-workflow/running-inference/inference-devices-and-modes/gpu-device.html
    "openvino": ("OpenVINO", ("xpu",)),
}


def portable_api(module: str) -> tuple[str, tuple[str, ...]] | None:
    """(name, targets) of a portable GPU API an import (``pyopencl.array``) belongs to, or None."""
    return PORTABLE_GPU_APIS.get(module.split(".")[0])


_CLASS_LINE = re.compile(r"^[ \t]*class[ \t]+(\w+)", re.MULTILINE)


def class_backends(name: str) -> frozenset[str]:
    """The backends a class name says it is for: ``CUDARenderer`` -> cuda, ``OpenCLRenderer`` -> xpu, rocm."""
    words = [word.lower() for word in _CLASS_WORDS.findall(name)]
    words += [a + b for a, b in itertools.pairwise(words)]  # "Open" "CL" -> opencl
    return frozenset(kind for word in words for kind in _CLASS_BACKENDS.get(word, ()))


def module_backend_classes(text: str) -> frozenset[str]:
    """The backends the classes defined in a module's text are named for (every ``class`` line, so a long
    module parsed in parts still shows the classes that hold no trigger)."""
    return frozenset().union(*(class_backends(name) for name in _CLASS_LINE.findall(text)))
