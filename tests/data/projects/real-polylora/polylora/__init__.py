from .config import CustomLoraConfig, PolyLoraConfig
from .context import LoraBatchContext
from .layers import MultiLoraLinear
from .model import CustomPeftModel, PolyLoraModel
from .store import CpuAdapterStore, DiskAdapterCache
from .cache import GpuAdapterCache

__all__ = [
    "CpuAdapterStore",
    "CustomLoraConfig",
    "CustomPeftModel",
    "DiskAdapterCache",
    "GpuAdapterCache",
    "LoraBatchContext",
    "MultiLoraLinear",
    "PolyLoraConfig",
    "PolyLoraModel",
]
