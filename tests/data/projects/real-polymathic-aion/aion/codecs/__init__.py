from .image import ImageCodec
from .scalar import ScalarCodec, LogScalarCodec, MultiScalarCodec, GridScalarCodec
from .spectrum import SpectrumCodec
from .catalog import CatalogCodec
from .scalar_field import ScalarFieldCodec
from .base import Codec
from .manager import CodecManager

__all__ = [
    "ImageCodec",
    "ScalarCodec",
    "LogScalarCodec",
    "MultiScalarCodec",
    "GridScalarCodec",
    "SpectrumCodec",
    "CatalogCodec",
    "ScalarFieldCodec",
    "Codec",
    "CodecManager",
]
