"""DARKformer for PyTorch."""

from darkformer_pytorch.attention import (
    AttentionMode,
    CausalAttentionState,
    ContextAttentionState,
    CrossAttention,
    DarkformerAttention,
    DarkformerKernelAttention,
    SelfAttention,
)
from darkformer_pytorch.backends import AttentionBackend
from darkformer_pytorch.model import (
    Darkformer,
    DarkformerBlock,
    DarkformerEncDec,
    DarkformerLayerState,
    DarkformerLM,
    DarkformerState,
)
from darkformer_pytorch.random_features import DataAwareRandomFeatures

__version__ = "1.0.0"

__all__ = [
    "AttentionBackend",
    "AttentionMode",
    "CausalAttentionState",
    "ContextAttentionState",
    "CrossAttention",
    "Darkformer",
    "DarkformerAttention",
    "DarkformerBlock",
    "DarkformerEncDec",
    "DarkformerKernelAttention",
    "DarkformerLM",
    "DarkformerLayerState",
    "DarkformerState",
    "DataAwareRandomFeatures",
    "SelfAttention",
    "__version__",
]
