"""Building-block layers for the diffusion world model: RoPE, attention block, encoders."""

from .action_encoder import ActionEncoder
from .rope import RoPE, SpatialRoPE2D
from .timestep_encoder import DiffusionTimeEmbedding
from .transformer import AdaSTBlock, FeedForward

__all__ = [
    "ActionEncoder",
    "AdaSTBlock",
    "DiffusionTimeEmbedding",
    "FeedForward",
    "RoPE",
    "SpatialRoPE2D",
]
