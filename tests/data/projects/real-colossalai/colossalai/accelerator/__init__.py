from .api import auto_set_accelerator, get_accelerator, set_accelerator
from .base_accelerator import BaseAccelerator
from .cpu_accelerator import CpuAccelerator
from .cuda_accelerator import CudaAccelerator
from .npu_accelerator import NpuAccelerator

__all__ = [
    "get_accelerator",
    "set_accelerator",
    "auto_set_accelerator",
    "BaseAccelerator",
    "CudaAccelerator",
    "NpuAccelerator",
    "CpuAccelerator",
]
