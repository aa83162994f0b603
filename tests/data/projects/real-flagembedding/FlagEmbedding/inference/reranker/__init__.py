from .decoder_only import FlagLLMReranker, LayerWiseFlagLLMReranker, LightWeightFlagLLMReranker
from .encoder_only import FlagReranker
from .model_mapping import RerankerModelClass

__all__ = [
    "FlagReranker",
    "FlagLLMReranker",
    "LayerWiseFlagLLMReranker",
    "LightWeightFlagLLMReranker",
    "RerankerModelClass",
]
