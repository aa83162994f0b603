"""Transformer layers."""

from .feedforward import FeedForward
from .layernorm import LayerNorm
from .multiheadattention import MultiHeadAttention
from .transformerblock import TransformerBlock
from .embedding import Embedding
from .positionencoding import PositionalEncoding
__all__ = ["FeedForward", "LayerNorm", "MultiHeadAttention", "TransformerBlock", "Embedding", "PositionalEncoding"]
