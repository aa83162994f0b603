from colt5_attention.transformer_block import (
    ConditionalRoutedFeedForward,
    ConditionalRoutedAttention,
    ConditionalRoutedImageAttention,
    ConditionalRoutedAutoregressiveAttention,
    ConditionalRoutedCrossAttention,
    ConditionalRoutedTransformerBlock,
    CoordinateDescentRouter
)

from colt5_attention.coor_descent import coor_descent
from colt5_attention.topk import topk

from colt5_attention.vit import ConditionalRoutedViT
