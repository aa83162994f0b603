"""Image stack protocol, implementations and loading utilities."""

__all__ = [
    "ImageStackLoader",
    "load_arrays",
    "load_custom_file",
    "load_czis",
    "load_iter_tiff",
    "load_tiffs",
    "load_zarrs",
]

from .image_stack_loader_protocol import ImageStackLoader
from .image_stack_loaders import (
    load_arrays,
    load_custom_file,
    load_czis,
    load_iter_tiff,
    load_tiffs,
    load_zarrs,
)
