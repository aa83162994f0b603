"""GraphCast model with gradient checkpointing."""

from .model import GraphCast, GraphCastConfig

__all__ = ["GraphCast", "GraphCastConfig"]
