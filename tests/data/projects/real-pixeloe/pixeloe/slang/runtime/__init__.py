from .context import Context, DeviceArray
from .cpu.context import CpuContext
from .registry import ALL_BACKENDS, create_context, get_context

__all__ = [
    "ALL_BACKENDS",
    "Context",
    "CpuContext",
    "DeviceArray",
    "create_context",
    "get_context",
]
