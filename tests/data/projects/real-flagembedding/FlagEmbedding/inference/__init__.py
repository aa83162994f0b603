from .auto_embedder import FlagAutoModel
from .auto_reranker import FlagAutoReranker
from .embedder import (
    FlagModel, BGEM3FlagModel,
    FlagICLModel, FlagLLMModel, FlagPseudoMoEModel,
    EmbedderModelClass
)
from .reranker import (
    FlagReranker,
    FlagLLMReranker, LayerWiseFlagLLMReranker, LightWeightFlagLLMReranker,
    RerankerModelClass
)


__all__ = [
    "FlagAutoModel",
    "FlagAutoReranker",
    "EmbedderModelClass",
    "RerankerModelClass",
    "FlagModel",
    "BGEM3FlagModel",
    "FlagICLModel",
    "FlagLLMModel",
    "FlagPseudoMoEModel",
    "FlagReranker",
    "FlagLLMReranker",
    "LayerWiseFlagLLMReranker",
    "LightWeightFlagLLMReranker",
]
