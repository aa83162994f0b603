from .args import KernelsArgs
from .plugin import KernelsPlugin

__all__ = [
    "KernelsArgs",
    "KernelsPlugin",
]
