"""Choosing where the AI runs (NVIDIA GPU, Intel GPU or CPU) and tuning PyTorch for it."""

from __future__ import annotations

import contextlib
import functools
import gc
from dataclasses import dataclass

import torch

from .errors import InvalidOptionError

OPENVINO_DEVICE = "GPU"
"""The OpenVINO device behind ``--device igpu``: Intel's integrated (Iris, UHD) or Arc GPU."""

DEFAULT_CPU_THREADS = torch.get_num_threads()
"""PyTorch's own choice of CPU threads, before anything changes it."""

INSTALL_OPENVINO = (
    'pip install openvino   (or: pip install "framelift-video[intel]"), and keep the Intel '
    "graphics driver up to date"
)


@dataclass(frozen=True)
class Device:
    """The compute device a run will use."""

    kind: str
    """``"cuda"``, ``"igpu"`` (an Intel GPU, through OpenVINO) or ``"cpu"``."""

    name: str
    """Human-friendly name, e.g. ``"NVIDIA GeForce RTX 3060"`` or ``"CPU"``."""

    gpu_id: int | None = None

    @property
    def is_cuda(self) -> bool:
        return self.kind == "cuda"

    @property
    def is_gpu(self) -> bool:
        return self.kind in ("cuda", "igpu")

    @property
    def torch_device(self) -> torch.device:
        """Where the tensors live (OpenVINO takes its input from the CPU)."""
        return torch.device(f"cuda:{self.gpu_id}") if self.is_cuda else torch.device("cpu")


def resolve_device(requested: str, gpu_id: int = 0) -> Device:
    """Turn ``auto`` / ``cpu`` / ``cuda`` / ``igpu`` into a concrete :class:`Device`.

    ``auto`` never picks the Intel GPU on its own: ``framelift tune`` measures whether
    it's actually faster than the CPU on your machine and suggests ``--device igpu``.
    """
    if requested not in ("auto", "cpu", "cuda", "igpu"):
        raise InvalidOptionError("device must be auto, cpu, cuda or igpu.")

    if requested == "igpu":
        name = intel_gpu_name()
        if name is None:
            raise InvalidOptionError(
                "You asked for --device igpu, but OpenVINO can't see an Intel GPU here. "
                f"Install it with: {INSTALL_OPENVINO}. Or use --device cpu."
            )
        return Device(kind="igpu", name=name)

    cuda_available = torch.cuda.is_available()

    if requested == "cuda" and not cuda_available:
        raise InvalidOptionError(
            "You asked for --device cuda, but PyTorch can't see a CUDA GPU. "
            "On Intel/AMD graphics or machines without NVIDIA drivers, use --device cpu "
            "(or install a CUDA-enabled PyTorch build if you do have an NVIDIA card)."
        )

    if requested == "cpu" or not cuda_available:
        return Device(kind="cpu", name="CPU")

    return Device(kind="cuda", name=torch.cuda.get_device_name(gpu_id), gpu_id=gpu_id)


def intel_gpu_name() -> str | None:
    """The Intel GPU OpenVINO can use, or ``None`` (no OpenVINO, no GPU, no driver)."""
    return _openvino_device_name(OPENVINO_DEVICE)


@functools.cache
def _openvino_device_name(device: str) -> str | None:
    try:
        import openvino as ov

        core = ov.Core()
        if device not in core.available_devices:
            return None
        return str(core.get_property(device, "FULL_DEVICE_NAME"))
    except Exception:  # not installed, or a broken driver: either way, not usable
        return None


def configure_torch(cpu_threads: int = 0) -> None:
    """Apply process-wide PyTorch performance settings.

    * ``cpu_threads > 0`` pins PyTorch's CPU thread pool size; ``0`` goes back to
      PyTorch's own choice. With several AI workers this is the count *per worker*.
    * On CUDA, enables cuDNN autotuning and TF32 math (much faster on RTX
      30xx and newer, with no visible quality difference for this task).
    """
    if cpu_threads and cpu_threads > 0:
        torch.set_num_threads(cpu_threads)
        # Can only be set once per process; harmless if it was already set.
        with contextlib.suppress(RuntimeError):
            torch.set_num_interop_threads(max(1, min(cpu_threads, 4)))
    else:
        torch.set_num_threads(DEFAULT_CPU_THREADS)

    if torch.cuda.is_available():
        torch.backends.cudnn.benchmark = True
        try:
            torch.backends.cuda.matmul.allow_tf32 = True
            torch.backends.cudnn.allow_tf32 = True
        except Exception:
            pass  # very old PyTorch builds don't have these switches


def gpu_memory_gb(device: Device) -> float | None:
    """Total memory of the device's GPU in GB, or None on CPU."""
    if not device.is_cuda:
        return None
    return torch.cuda.get_device_properties(device.gpu_id).total_memory / 1024**3


def current_cpu_threads() -> int:
    return torch.get_num_threads()


def synchronize(device: Device | None) -> None:
    """Wait for queued GPU work to finish, so timings measure real work."""
    if device is not None and device.is_cuda and torch.cuda.is_available():
        torch.cuda.synchronize(device.gpu_id)


def release_memory(device: Device | None) -> None:
    """Run Python's GC and give cached GPU memory back to the driver."""
    gc.collect()
    if device is not None and device.is_cuda and torch.cuda.is_available():
        torch.cuda.empty_cache()
