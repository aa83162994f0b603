from .device import CUDAProperties, Device, ROCMProperties
from .func import (
    FuncRepository,
    LocalFuncRepository,
    LockedFuncRepository,
    use_kernel_func_from_hub,
)
from .kernelize import (
    kernelize,
    register_kernel_mapping,
    use_kernel_mapping,
)
from .layer import (
    KernelizeFallback,
    LayerRepository,
    LocalLayerRepository,
    LockedLayerRepository,
    replace_kernel_forward_from_hub,
    use_kernel_forward_from_hub,
    use_kernelized_func,
)
from .mode import Mode

__all__ = [
    "CUDAProperties",
    "Device",
    "KernelizeFallback",
    "ROCMProperties",
    "FuncRepository",
    "LayerRepository",
    "LocalFuncRepository",
    "LocalLayerRepository",
    "LockedFuncRepository",
    "LockedLayerRepository",
    "Mode",
    "kernelize",
    "register_kernel_mapping",
    "replace_kernel_forward_from_hub",
    "use_kernel_forward_from_hub",
    "use_kernel_func_from_hub",
    "use_kernel_mapping",
    "use_kernelized_func",
]
