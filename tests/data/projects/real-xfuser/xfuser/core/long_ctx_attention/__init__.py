from .hybrid import (
    xFuserLongContextAttention, 
    xFuserSanaLinearLongContextAttention,
    AttnType,)

__all__ = [
    "xFuserLongContextAttention",
    "xFuserSanaLinearLongContextAttention",
    "AttnType",
]
