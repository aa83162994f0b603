from .base import BaseLLMEmbedder as FlagLLMModel
from .icl import ICLLLMEmbedder as FlagICLModel
from .pseudo_moe import PseudoMoELLMEmbedder as FlagPseudoMoEModel

__all__ = [
    "FlagLLMModel",
    "FlagICLModel",
    "FlagPseudoMoEModel",
]
