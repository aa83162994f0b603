from .freeze import freeze, unfreeze
from .device import get_device, move_batch, auto_device
from .typing import BatchDict, OutputDict

__all__ = [
    "freeze",
    "unfreeze",
    "get_device",
    "move_batch",
    "auto_device",
    "BatchDict",
    "OutputDict",
]

