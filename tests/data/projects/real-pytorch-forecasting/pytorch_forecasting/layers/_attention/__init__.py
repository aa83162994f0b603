"""
Attention Layers for pytorch-forecasting models.
"""

from pytorch_forecasting.layers._attention._attention_layer import AttentionLayer
from pytorch_forecasting.layers._attention._full_attention import (
    FullAttention,
    TriangularCausalMask,
)

__all__ = ["AttentionLayer", "FullAttention", "TriangularCausalMask"]
