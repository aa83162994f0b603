# Copyright (c) OpenMMLab. All rights reserved.
from .transformer_module import (MultiHeadAttention, PositionalEncoding,
                                 PositionwiseFeedForward,
                                 ScaledDotProductAttention)

__all__ = [
    'ScaledDotProductAttention', 'MultiHeadAttention',
    'PositionwiseFeedForward', 'PositionalEncoding'
]
