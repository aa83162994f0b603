"""Image stack protocol and implementations."""

__all__ = [
    "CziImageStack",
    "FileImageStack",
    "GenericImageStack",
    "ImageStack",
    "InMemoryImageStack",
    "ZarrImageStack",
]

from .czi_image_stack import CziImageStack
from .file_image_stack import FileImageStack
from .image_stack_protocol import GenericImageStack, ImageStack
from .in_memory_image_stack import InMemoryImageStack
from .zarr_image_stack import ZarrImageStack
