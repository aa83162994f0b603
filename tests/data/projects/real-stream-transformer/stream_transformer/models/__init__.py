"""
stream_transformer.models – Standard Transformer Layer Architectures
"""

from stream_transformer.models.llama import LlamaDecoderBlock, RMSNorm, LlamaAttention, LlamaMLP

__all__ = [
    "LlamaDecoderBlock",
    "RMSNorm",
    "LlamaAttention",
    "LlamaMLP",
]
