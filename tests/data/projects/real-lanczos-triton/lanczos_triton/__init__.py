"""Inference-only Lanczos image resizing on NVIDIA GPUs."""

from .resize import Resizer, resize

__all__ = ["Resizer", "resize"]
__version__ = "0.1.0"
