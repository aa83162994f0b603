from .encoder_only import FlagModel, BGEM3FlagModel
from .decoder_only import FlagICLModel, FlagLLMModel, FlagPseudoMoEModel
from .model_mapping import EmbedderModelClass

__all__ = [
    "FlagModel",
    "BGEM3FlagModel",
    "FlagICLModel",
    "FlagLLMModel",
    "FlagPseudoMoEModel",
    "EmbedderModelClass",
]
