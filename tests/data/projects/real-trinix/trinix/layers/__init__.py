from . import activation, attention, embeddings, norm
from .activation import FastGeGLU, FastSwiGLU
from .attention import (
    FastBaseAttention,
    FastGroupedQueryAttention,
    FastMultiHeadAttention,
    FastMultiHeadLatentAttention,
    FastMultiHeadSelfAttention,
)
from .embeddings import (
    FastALiBiPositionEmbedding,
    FastRoPEPositionEmbedding,
)
from .norm import FastLayerNorm, FastRMSNorm

__all__ = [
    "activation",
    "attention",
    "embeddings",
    "norm",
    "FastBaseAttention",
    "FastGroupedQueryAttention",
    "FastMultiHeadAttention",
    "FastMultiHeadSelfAttention",
    "FastMultiHeadLatentAttention",
    "FastRoPEPositionEmbedding",
    "FastALiBiPositionEmbedding",
    "FastLayerNorm",
    "FastRMSNorm",
    "FastSwiGLU",
    "FastGeGLU",
]
