from .attention import (AttentionEncoder, MultiHeadAttention,
                        PositionalEncoding, SpatialSelfAttention,
                        TemporalSelfAttention)
from .dense import Dense
from .embedding import NodeEmbedding
from .temporal_conv import GatedTemporalConv, TemporalConv

__all__ = [
    'Dense',
    'TemporalConv',
    'GatedTemporalConv',
    'NodeEmbedding',
    'PositionalEncoding',
    'MultiHeadAttention',
    'TemporalSelfAttention',
    'SpatialSelfAttention',
]

classes = __all__
