from ..layers.feedforward import PointwiseFeedForward
from .activations import Activation, GELUFast, GELUNew
from .attention import (
    AttentionHeads,
    AttentionLinearBiases,
    AttentionMask,
    AttentionScorer,
    QkvMode,
    QkvSplit,
    ScaledDotProductAttention,
    SelfAttention,
    enable_torch_sdp,
)
from .cache import CacheProtocol, KeyValueCache
from .embeddings import (
    QueryKeyRotaryEmbeddings,
    RotaryEmbeddings,
    SinusoidalPositionalEmbedding,
)
from .normalization import RMSNorm
from .transformer import (
    DecoderLayer,
    EmbeddingDropouts,
    EmbeddingLayerNorms,
    EncoderLayer,
    TransformerDropouts,
    TransformerEmbeddings,
    TransformerLayerNorms,
)

__all__ = [
    "Activation",
    "AttentionHeads",
    "AttentionLinearBiases",
    "AttentionMask",
    "AttentionScorer",
    "CacheProtocol",
    "DecoderLayer",
    "EmbeddingDropouts",
    "EmbeddingLayerNorms",
    "EncoderLayer",
    "GELUFast",
    "GELUNew",
    "KeyValueCache",
    "PointwiseFeedForward",
    "QkvMode",
    "QkvSplit",
    "QueryKeyRotaryEmbeddings",
    "RMSNorm",
    "RotaryEmbeddings",
    "ScaledDotProductAttention",
    "SelfAttention",
    "SinusoidalPositionalEmbedding",
    "TransformerDropouts",
    "TransformerEmbeddings",
    "TransformerLayerNorms",
    "enable_torch_sdp",
]
