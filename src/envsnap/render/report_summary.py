"""The short summary at the top of an ``envsnap report``: what a maintainer reads before anything else.

The rows answer the questions maintainers ask first in a bug report (the ones
``python -m torch.utils.collect_env`` exists for): which OS and Python, which torch build and its
CUDA/ROCm, which driver, which GPUs with their compute capability or gfx target, which toolkit,
which versions of the usual suspects. Values are plain strings taken from the model; the
renderer (report.py) escapes them for Markdown or for a terminal.
"""

from __future__ import annotations

from collections import Counter

from envsnap.render.summary import torch_build
from envsnap.snapshot.model import Section, Snapshot

KEY_PACKAGES = (
    "torch",
    "torchvision",
    "torchaudio",
    "triton",
    "numpy",
    "transformers",
    "accelerate",
    "xformers",
    "flash-attn",
    "vllm",
    "deepspeed",
    "bitsandbytes",
    "jax",
    "jaxlib",
    "tensorflow",
    "onnxruntime",
    "onnxruntime-gpu",
    "nvidia-cudnn-cu12",
    "nvidia-cudnn-cu13",
    "nvidia-nccl-cu12",
    "nvidia-nccl-cu13",
)
"""The packages whose versions the summary names (when installed); every package is in the block."""

Row = tuple[str, str]


def _reason(section: Section | None, limit: int = 120) -> str:
    if section is None:
        return "not probed"
    reason = section.reason or section.status
    return reason if len(reason) <= limit else reason[: limit - 1] + "…"


def _join(*parts: str | None, sep: str = " · ") -> str:
    return sep.join(part for part in parts if part)


def _os_row(snapshot: Snapshot) -> str | None:
    host = snapshot.host
    if host is None or not host.ok:
        return None
    where = [host.container, "Slurm job" if host.slurm else None, "WSL" if host.wsl else None]
    kernel = f"kernel {host.kernel}" if host.kernel else None
    return _join(_join(host.os_name, host.os_version, sep=" "), kernel, host.arch, *where) or None


def _python_row(snapshot: Snapshot) -> str | None:
    python = snapshot.python
    if python is None or not python.ok:
        return None
    kind = _join(python.env_kind, python.env_name, sep=" ")
    return _join(_join(python.implementation, python.version, sep=" "), kind) or None


def _framework_rows(snapshot: Snapshot) -> list[Row]:
    rows: list[Row] = []
    build = torch_build(snapshot)
    frameworks = snapshot.frameworks
    if build:
        torch = frameworks.torch if frameworks else None
        extra = f"cuDNN {torch.cudnn}" if torch is not None and torch.cudnn else None
        rows.append(("PyTorch", _join(build, extra)))
    if frameworks is None:
        return rows
    jax = frameworks.jax
    if jax is not None and jax.ok and jax.version:
        rows.append(
            (
                "JAX",
                _join(
                    jax.version,
                    f"jaxlib {jax.jaxlib_version}" if jax.jaxlib_version else None,
                    f"backend {jax.backend}" if jax.backend else None,
                ),
            )
        )
    tf = frameworks.tensorflow
    if tf is not None and tf.ok and tf.version:
        rows.append(("TensorFlow", _join(tf.version, f"{len(tf.gpus or ())} GPU(s) visible")))
    ort = frameworks.onnxruntime
    if ort is not None and ort.ok and ort.version:
        providers = ", ".join(ort.providers or ())
        rows.append(("ONNX Runtime", _join(_join(ort.distribution, ort.version, sep=" "), providers)))
    return rows


def _driver_row(snapshot: Snapshot) -> str:
    acc = snapshot.accelerators
    nvidia = acc.nvidia if acc else None
    amd = acc.amd if acc else None
    parts: list[str] = []
    if nvidia is not None and nvidia.ok and nvidia.driver_version:
        cuda = f" (supports CUDA ≤ {nvidia.cuda_driver_version})" if nvidia.cuda_driver_version else ""
        parts.append(f"NVIDIA {nvidia.driver_version}{cuda}")
    if amd is not None and amd.ok and (amd.driver_version or amd.rocm_version):
        rocm = f"ROCm {amd.rocm_version}" if amd.rocm_version else None
        parts.append(_join(f"amdgpu {amd.driver_version}" if amd.driver_version else None, rocm))
    if parts:
        return "; ".join(parts)
    return f"none (NVIDIA: {_reason(nvidia)})" if nvidia is not None else "none"


def _gpu_row(snapshot: Snapshot) -> str:
    acc = snapshot.accelerators
    models: Counter[str] = Counter()
    if acc is not None:
        for device in (acc.nvidia.devices or ()) if acc.nvidia else ():
            cc = f" (CC {device.compute_capability})" if device.compute_capability else ""
            models[f"{device.name or 'NVIDIA GPU'}{cc}"] += 1
        for amd_device in (acc.amd.devices or ()) if acc.amd else ():
            gfx = f" ({amd_device.gfx_target})" if amd_device.gfx_target else ""
            models[f"{amd_device.name or 'AMD GPU'}{gfx}"] += 1
        for intel_device in (acc.intel.devices or ()) if acc.intel else ():
            models[intel_device.name or "Intel GPU"] += 1
        if acc.mps is not None and acc.mps.available:
            models[f"Apple MPS ({acc.mps.chip or 'Apple silicon'})"] += 1
    if not models:
        return "none"
    return ", ".join(f"{count}× {name}" for name, count in models.items())


def _toolkit_row(snapshot: Snapshot) -> str | None:
    toolkits = snapshot.toolkits
    if toolkits is None:
        return None
    parts: list[str] = []
    if (
        toolkits.cuda is not None
        and toolkits.cuda.ok
        and (toolkits.cuda.nvcc_version or toolkits.cuda.version)
    ):
        parts.append(f"CUDA {toolkits.cuda.nvcc_version or toolkits.cuda.version}")
    for label, library in (("cuDNN", toolkits.cudnn), ("NCCL", toolkits.nccl)):
        if library is not None and library.ok and library.version:
            parts.append(f"{label} {library.version}")
    for label, rocm in (("ROCm", toolkits.rocm), ("HIP", toolkits.hip)):
        if rocm is not None and rocm.ok and rocm.version:
            parts.append(f"{label} {rocm.version}")
    return ", ".join(parts) if parts else None


def _packages_row(snapshot: Snapshot) -> str | None:
    versions = {
        package.name.lower().replace("_", "-"): package.version for package in snapshot.packages or ()
    }
    named = [f"{name} {versions[name]}" for name in KEY_PACKAGES if versions.get(name)]
    total = len(snapshot.packages or ())
    if not total:
        return None
    return _join(", ".join(named), f"{total} packages in all")


def summary_rows(snapshot: Snapshot) -> list[Row]:
    """``(label, value)`` pairs, in reading order; rows with nothing to say are left out."""
    rows: list[Row] = []
    for label, value in (("OS", _os_row(snapshot)), ("Python", _python_row(snapshot))):
        if value:
            rows.append((label, value))
    rows.extend(_framework_rows(snapshot))
    rows.append(("Driver", _driver_row(snapshot)))
    rows.append(("GPUs", _gpu_row(snapshot)))
    for label, value in (("Toolkits", _toolkit_row(snapshot)), ("Packages", _packages_row(snapshot))):
        if value:
            rows.append((label, value))
    return rows
