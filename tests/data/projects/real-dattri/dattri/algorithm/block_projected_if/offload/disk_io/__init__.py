"""IO module for disk and memory-mapped operations."""

from .manager import ChunkedDiskIOManager, DataTypeOptions, HessianOptions
from .memory_map import ChunkedMemoryMapHandler
from .prefetch_dataset import create_tensor_dataloader

__all__ = [
    "ChunkedDiskIOManager",
    "ChunkedMemoryMapHandler",
    "DataTypeOptions",
    "HessianOptions",
    "create_tensor_dataloader",
]
