from .base import BaseLLMReranker as FlagLLMReranker
from .layerwise import LayerWiseLLMReranker as LayerWiseFlagLLMReranker
from .lightweight import LightweightLLMReranker as LightWeightFlagLLMReranker

__all__ = [
    "FlagLLMReranker",
    "LayerWiseFlagLLMReranker",
    "LightWeightFlagLLMReranker"
]
