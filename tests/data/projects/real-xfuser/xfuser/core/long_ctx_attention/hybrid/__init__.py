from .attn_layer import (
    xFuserLongContextAttention,
    xFuserSanaLinearLongContextAttention,
    AttnType,
)

__all__ = [
    "xFuserLongContextAttention",
    "xFuserSanaLinearLongContextAttention",
    "AttnType",
]
