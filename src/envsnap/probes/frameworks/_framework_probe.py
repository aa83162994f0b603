"""Runs INSIDE the target interpreter: import one ML framework and print what its build says, as JSON.

envsnap never imports frameworks itself. frameworks.py copies this file into a private temporary
folder and runs ``python -B <copy> <job> <progress-file>`` once per framework, so the target
environment's own torch/jax/... answer, envsnap stays off the target's ``sys.path``, and a hung CUDA
init or a segfault kills only this child. Hence the constraints:

- the standard library only, and Python 3.8 syntax and APIs (the target may be an old interpreter);
- one JSON document on the real standard output, however much the framework itself prints (fd 1 is
  pointed at stderr while the framework runs; its chatter is captured and dropped by the parent);
- a progress line is appended to the progress file *before* each step that can hang or crash, so
  the parent can say "timed out after 20 s while calling torch.cuda.is_available()";
- the child leaves with ``os._exit`` right after writing, skipping interpreter shutdown, where CUDA
  and TensorFlow teardown are known to hang or crash long after the answer is complete.

The parent turns the raw answers into the model (version formatting, config parsing, library
origins), so this file only asks questions and never interprets.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations are never evaluated at run time, so Python 3.8 never sees these
    from collections.abc import Callable

    Result = dict[str, Any]

# docs/compat-rules.md B5.4: the CUDA/ROCm/oneAPI libraries worth reporting when mapped.
_ACCEL_LIBRARY = re.compile(
    r"^lib(cudart|cuda|nvidia-ml|cudnn[_a-z]*|cublas(Lt)?|cufft|curand|cusolver|cusparse(Lt)?|nccl"
    r"|nvrtc(-builtins)?|nvJitLink|nvshmem_host|cupti|cufile|amdhip64|MIOpen|rocblas|hipblas(lt)?"
    r"|rccl|ze_loader|sycl)\.so[.0-9]*$"
)
_ONNXRUNTIME_DIST = re.compile(r"^(onnxruntime|onnxruntime-.+|ort-.+)$")
_JAX_PLUGIN_DIST = re.compile(r"^jax-(cuda|rocm)\d*-(plugin|pjrt)$")
_COMPANION_DIST = re.compile(
    r"^(torchvision|torchaudio|torchtext|xformers|flash-attn|triton|pytorch-triton(-rocm|-xpu)?"
    r"|tensorrt(-cu\d+)?|torch-tensorrt)$"
)
_MESSAGE_LIMIT = 2000


class Progress:
    """Appends "what I am about to do" lines to a file the parent reads after a hang or a crash."""

    def __init__(self, path: str | None) -> None:
        self._path = path

    def stage(self, text: str) -> None:
        if self._path is None:
            return
        try:
            with open(self._path, "a", encoding="utf-8") as handle:
                handle.write(text + "\n")
        except OSError:
            pass


def describe(err: BaseException) -> str:
    """``Type: message``, bounded, as the parent records it."""
    message = str(err).strip()
    text = type(err).__name__ + (": " + message if message else "")
    return text[:_MESSAGE_LIMIT]


def text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def normalize(name: str) -> str:
    """PEP 503 name normalization (packaging is not available here)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def try_import(name: str, progress: Progress) -> tuple[Any, Result | None]:
    """The module, or the result to report: skipped when absent, failed when broken."""
    progress.stage("importing " + name)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name == name:
            return None, {"status": "skipped", "reason": "not installed"}
        return None, {"status": "failed", "reason": describe(err)}
    except BaseException as err:  # SystemExit, or anything else a broken build raises
        return None, {"status": "failed", "reason": describe(err)}
    if getattr(module, "__file__", None) is None:
        where = ", ".join(sorted(str(path) for path in getattr(module, "__path__", [])))
        reason = "{} imports as an empty namespace package ({}): leftover folder of an uninstall?"
        return None, {"status": "failed", "reason": reason.format(name, where)}
    return module, None


class Attempts:
    """Runs optional questions; a failing one is noted and the probe goes on."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.errors: list[str] = []

    def __call__(self, stage: str, question: Callable[[], Any]) -> Any:
        self.progress.stage(stage)
        try:
            return question()
        except Exception as err:
            self.errors.append(stage + ": " + describe(err))
            return None


def distributions() -> list[Any]:
    from importlib import metadata

    return list(metadata.distributions())


def dist_name(dist: Any) -> str:
    return str(dist.metadata["Name"] or "")


# ---------------------------------------------------------------------------- torch


def torch_job(progress: Progress) -> Result:
    torch, outcome = try_import("torch", progress)
    if outcome is not None:
        return outcome
    ask = Attempts(progress)
    version = getattr(torch, "version", None)
    result: Result = {
        "status": "ok",
        "version": text_or_none(getattr(torch, "__version__", None)),
        "location": os.path.dirname(os.path.abspath(torch.__file__)),
        "prefix": sys.prefix,
        "conda_prefix": os.path.isdir(os.path.join(sys.prefix, "conda-meta")),
    }
    for key in ("git_version", "cuda", "hip", "xpu"):
        result[key] = text_or_none(getattr(version, key, None))
    debug = getattr(version, "debug", None)
    result["debug"] = debug if isinstance(debug, bool) else None
    gpu_build = bool(result["cuda"] or result["hip"])
    rocm = bool(result["hip"])
    # Each question goes through ask(): a build missing one API, or a driver call that raises,
    # costs that answer only. is_available() initialises the CUDA driver but creates no context.
    result["arch_list"] = ask("reading torch.cuda.get_arch_list()", lambda: torch_arch_list(torch, gpu_build))
    cuda_available = ask("calling torch.cuda.is_available()", lambda: torch.cuda.is_available())
    xpu_available = None
    if hasattr(torch, "xpu"):
        xpu_available = ask("calling torch.xpu.is_available()", lambda: torch.xpu.is_available())
    mps_available = ask(
        "calling torch.backends.mps.is_available()", lambda: torch.backends.mps.is_available()
    )
    result["available"] = {"cuda": cuda_available, "xpu": xpu_available, "mps": mps_available}
    devices: list[Result] = []
    if cuda_available:
        devices += ask("querying torch.cuda devices", lambda: cuda_devices(torch, rocm)) or []
    if xpu_available:
        devices += ask("querying torch.xpu devices", lambda: xpu_devices(torch)) or []
    if mps_available:
        devices.append({"index": 0, "type": "mps"})
    result["devices"] = devices
    if gpu_build:
        result["cudnn_int"] = ask(
            "calling torch.backends.cudnn.version()", lambda: torch.backends.cudnn.version()
        )
        if hasattr(torch._C, "_nccl_version"):  # absent from builds without NCCL/RCCL
            nccl = ask("calling torch.cuda.nccl.version()", lambda: torch.cuda.nccl.version())
            result["nccl"] = list(nccl) if isinstance(nccl, tuple) else nccl
    result["config"] = ask("calling torch.__config__.show()", lambda: torch.__config__.show())
    if hasattr(torch, "compiled_with_cxx11_abi"):
        result["cxx11_abi"] = ask(
            "calling torch.compiled_with_cxx11_abi()", lambda: torch.compiled_with_cxx11_abi()
        )
    result["loaded_libraries"] = ask("reading /proc/self/maps", loaded_libraries)
    result["errors"] = ask.errors
    return result


def torch_arch_list(torch: Any, gpu_build: bool) -> list[str]:
    arch_list = [str(arch) for arch in torch.cuda.get_arch_list()]
    # Older releases return [] whenever no GPU is usable, hiding a build property exactly on the hosts
    # being diagnosed; the compiled-in flags answer regardless.
    flags = getattr(torch._C, "_cuda_getArchFlags", None)
    if not arch_list and gpu_build and flags is not None:
        arch_list = str(flags() or "").split()
    return arch_list


def cuda_devices(torch: Any, rocm: bool) -> list[Result]:
    devices = []
    for index in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(index)
        device: Result = {"index": index, "type": "cuda", "name": text_or_none(getattr(props, "name", None))}
        device["memory_total_bytes"] = int(props.total_memory)
        if rocm:
            # ROCm fills major/minor from the gfx version; gcnArchName is the real identity.
            device["gcn_arch"] = text_or_none(getattr(props, "gcnArchName", None))
        else:
            device["capability"] = f"{props.major}.{props.minor}"
        devices.append(device)
    return devices


def xpu_devices(torch: Any) -> list[Result]:
    devices = []
    for index in range(torch.xpu.device_count()):
        props = torch.xpu.get_device_properties(index)
        devices.append(
            {
                "index": index,
                "type": "xpu",
                "name": text_or_none(getattr(props, "name", None)),
                "memory_total_bytes": int(props.total_memory),
            }
        )
    return devices


def loaded_libraries() -> list[str] | None:
    """Realpaths of accelerator libraries mapped into this process (Linux only)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    found = set()
    for line in lines:
        fields = line.split(None, 5)
        if len(fields) == 6 and fields[5].startswith("/"):
            path = fields[5].strip()
            if _ACCEL_LIBRARY.match(os.path.basename(path)):
                found.add(os.path.realpath(path))
    return sorted(found)


# ---------------------------------------------------------------------------- jax, tensorflow, onnxruntime


def jax_job(progress: Progress) -> Result:
    jax, outcome = try_import("jax", progress)
    if outcome is not None:
        return outcome
    ask = Attempts(progress)
    result: Result = {"status": "ok", "version": text_or_none(getattr(jax, "__version__", None))}
    jaxlib = ask("importing jaxlib", lambda: importlib.import_module("jaxlib"))
    result["jaxlib_version"] = text_or_none(getattr(jaxlib, "__version__", None))
    result["backend"] = text_or_none(ask("calling jax.default_backend()", jax.default_backend))
    result["devices"] = ask("calling jax.devices()", lambda: [describe_jax_device(d) for d in jax.devices()])
    result["plugins"] = ask("reading installed distributions", jax_plugins)
    result["errors"] = ask.errors
    return result


def describe_jax_device(device: Any) -> str:
    kind = getattr(device, "device_kind", None)
    label = "{}:{}".format(getattr(device, "platform", "?"), getattr(device, "id", "?"))
    return label + (" " + str(kind) if kind else "")


def jax_plugins() -> list[str]:
    found = set()
    for dist in distributions():
        if _JAX_PLUGIN_DIST.match(normalize(dist_name(dist))):
            found.add(f"{dist_name(dist)}=={dist.version}")
    return sorted(found)


def tensorflow_job(progress: Progress) -> Result:
    tf, outcome = try_import("tensorflow", progress)
    if outcome is not None:
        return outcome
    ask = Attempts(progress)
    result: Result = {"status": "ok", "version": text_or_none(getattr(tf, "__version__", None))}
    info = ask("calling tf.sysconfig.get_build_info()", lambda: dict(tf.sysconfig.get_build_info()))
    result["build_info"] = None if info is None else {str(key): plain(value) for key, value in info.items()}
    result["gpus"] = ask("calling tf.config.list_physical_devices('GPU')", lambda: tensorflow_gpus(tf))
    result["errors"] = ask.errors
    return result


def plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [str(item) for item in value]
    return value if isinstance(value, (bool, int, float, str)) or value is None else str(value)


def tensorflow_gpus(tf: Any) -> list[str]:
    gpus = []
    for device in tf.config.list_physical_devices("GPU"):
        label = str(device.name)
        try:  # device details need no GPU context; they are still optional
            details = tf.config.experimental.get_device_details(device)
        except Exception:
            details = {}
        name = details.get("device_name")
        capability = details.get("compute_capability")
        if name:
            label += " " + str(name)
        if capability:
            label += " (compute capability {})".format(".".join(str(part) for part in capability))
        gpus.append(label)
    return gpus


def onnxruntime_job(progress: Progress) -> Result:
    ort, outcome = try_import("onnxruntime", progress)
    if outcome is not None:
        return outcome
    ask = Attempts(progress)
    result: Result = {"status": "ok", "version": text_or_none(getattr(ort, "__version__", None))}
    result["providers"] = ask("calling onnxruntime.get_available_providers()", ort.get_available_providers)
    result["device"] = text_or_none(ask("calling onnxruntime.get_device()", ort.get_device))
    package_dir = os.path.dirname(os.path.abspath(ort.__file__))
    result["distributions"] = ask("reading installed distributions", lambda: onnxruntime_dists(package_dir))
    result["errors"] = ask.errors
    return result


def onnxruntime_dists(package_dir: str) -> list[Result]:
    """Every distribution installed where the imported package lives that provides it (B6.3).

    ``installed`` tells which one wrote the compiled module on disk now: its RECORD size matches.
    """
    site_dir = os.path.realpath(os.path.dirname(package_dir))
    found = []
    for dist in distributions():
        name = dist_name(dist)
        if not _ONNXRUNTIME_DIST.match(normalize(name)):
            continue
        if os.path.realpath(str(dist.locate_file(""))) != site_dir:
            continue
        files = [f for f in dist.files or [] if str(f).replace("\\", "/").startswith("onnxruntime/")]
        if not files:
            continue
        installed = None
        for f in files:
            if os.path.basename(str(f)).startswith("onnxruntime_pybind11_state") and f.size is not None:
                try:
                    installed = os.path.getsize(str(dist.locate_file(f))) == f.size
                except OSError:
                    installed = False
        found.append({"name": name, "version": dist.version, "installed": installed})
    return found


# ---------------------------------------------------------------------------- companions


def companions_job(progress: Progress) -> Result:
    progress.stage("reading installed distributions")
    found: dict[str, Result] = {}
    for dist in distributions():
        name = dist_name(dist)
        if _COMPANION_DIST.match(normalize(name)):
            found.setdefault(normalize(name), {"name": name, "version": str(dist.version)})
    return {"status": "ok", "companions": [found[key] for key in sorted(found)]}


JOBS: dict[str, Callable[[Progress], Result]] = {
    "torch": torch_job,
    "jax": jax_job,
    "tensorflow": tensorflow_job,
    "onnxruntime": onnxruntime_job,
    "companions": companions_job,
}


def main(argv: list[str]) -> None:
    job = JOBS[argv[1]]
    progress = Progress(argv[2] if len(argv) > 2 else None)
    try:  # a framework that segfaults must not leave a core file in the user's working folder
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except Exception:
        pass
    real_stdout = os.dup(1)
    os.dup2(2, 1)  # a framework printing on stdout (C or Python) must not corrupt the JSON answer
    with warnings.catch_warnings(record=True) as caught:
        try:
            result = job(progress)
        except BaseException as err:  # the answer must always be written
            result = {"status": "failed", "reason": describe(err)}
    notes = []
    for warning in caught:
        if issubclass(warning.category, (UserWarning, RuntimeWarning)):
            note = f"{warning.category.__name__}: {warning.message}"[:_MESSAGE_LIMIT]
            if note not in notes:
                notes.append(note)
    result["warnings"] = notes
    data = json.dumps(result, sort_keys=True, default=str).encode("utf-8")
    while data:
        data = data[os.write(real_stdout, data) :]
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv)
