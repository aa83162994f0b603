from ._base_components import (
    Decoder,
    DecoderSCVI,
    DecoderTOTALVI,
    Encoder,
    EncoderTOTALVI,
    FCLayers,
    LinearDecoderSCVI,
    MultiDecoder,
    MultiEncoder,
)
from ._embedding import Embedding

__all__ = [
    "FCLayers",
    "Encoder",
    "EncoderTOTALVI",
    "Decoder",
    "DecoderSCVI",
    "DecoderTOTALVI",
    "LinearDecoderSCVI",
    "MultiEncoder",
    "MultiDecoder",
    "Embedding",
]
