"""Latent encoder and decoder modules for latent-variable models such as
GraphEFM, mapping between grid representations and distributions over
latent variables on mesh nodes."""

# Local
from .base_decoder import BaseGraphLatentDecoder
from .base_encoder import BaseLatentEncoder
from .constant_encoder import ConstantLatentEncoder
from .graph_decoder import GraphLatentDecoder
from .graph_encoder import GraphLatentEncoder
from .hi_graph_decoder import HiGraphLatentDecoder
from .hi_graph_encoder import HiGraphLatentEncoder

__all__ = [
    "BaseGraphLatentDecoder",
    "BaseLatentEncoder",
    "ConstantLatentEncoder",
    "GraphLatentDecoder",
    "GraphLatentEncoder",
    "HiGraphLatentDecoder",
    "HiGraphLatentEncoder",
]
