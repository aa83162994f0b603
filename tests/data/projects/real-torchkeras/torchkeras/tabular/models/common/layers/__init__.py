from . import activations
from .batch_norm import GBN, BatchNorm1d
from .embeddings import Embedding1dLayer, Embedding2dLayer, PreEncoded1dLayer, SharedEmbeddings
from .gated_units import GEGLU, GatedFeatureLearningUnit, PositionWiseFeedForward, ReGLU, SwiGLU
from .misc import Add, Lambda, ModuleWithInit, Residual
from .soft_trees import ODST, NeuralDecisionTree
from .transformers import AddNorm, AppendCLSToken, MultiHeadedAttention, TransformerEncoderBlock

__all__ = [
    "PreEncoded1dLayer",
    "SharedEmbeddings",
    "Embedding1dLayer",
    "Embedding2dLayer",
    "Residual",
    "Add",
    "Lambda",
    "ModuleWithInit",
    "PositionWiseFeedForward",
    "AddNorm",
    "MultiHeadedAttention",
    "TransformerEncoderBlock",
    "AppendCLSToken",
    "ODST",
    "activations",
    "GEGLU",
    "ReGLU",
    "SwiGLU",
    "NeuralDecisionTree",
    "GatedFeatureLearningUnit",
    "GBN",
    "BatchNorm1d",
]
