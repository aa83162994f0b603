"""Image module for tabpfn_extensions package."""

from ._embeddings import GatedEncoderError
from ._preprocessing import image_to_bytes
from .image_transformer import ImageTransformer
from .tabpfn_with_images import TabPFNWithImages

__all__ = [
    "GatedEncoderError",
    "ImageTransformer",
    "TabPFNWithImages",
    "image_to_bytes",
]
