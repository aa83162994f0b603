"""
`continuiti.networks`

Networks in continuiti.
"""

from .fully_connected import FullyConnected
from .deep_residual_network import DeepResidualNetwork
from .multi_head_attention import MultiHeadAttention
from .scaled_dot_product_attention import ScaledDotProductAttention

__all__ = [
    "FullyConnected",
    "DeepResidualNetwork",
    "MultiHeadAttention",
    "ScaledDotProductAttention",
]
