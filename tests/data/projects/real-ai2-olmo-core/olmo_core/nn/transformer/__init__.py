from .block import (
    MoEHybridReorderedNormTransformerBlock,
    MoEHybridTransformerBlock,
    MoEHybridTransformerBlockBase,
    MoEReorderedNormTransformerBlock,
    MoETransformerBlock,
    NormalizedTransformerBlock,
    ReorderedNormTransformerBlock,
    TransformerBlock,
    TransformerBlockBase,
)
from .config import (
    TransformerActivationCheckpointingMode,
    TransformerBlockConfig,
    TransformerBlockType,
    TransformerConfig,
    TransformerDataParallelWrappingStrategy,
    TransformerType,
)
from .init import InitMethod
from .model import MoETransformer, NormalizedTransformer, Transformer

__all__ = [
    "TransformerType",
    "TransformerConfig",
    "Transformer",
    "NormalizedTransformer",
    "MoETransformer",
    "MoEHybridTransformerBlockBase",
    "MoEHybridTransformerBlock",
    "MoEHybridReorderedNormTransformerBlock",
    "TransformerBlockType",
    "TransformerBlockConfig",
    "TransformerBlockBase",
    "TransformerBlock",
    "ReorderedNormTransformerBlock",
    "NormalizedTransformerBlock",
    "MoETransformerBlock",
    "MoEReorderedNormTransformerBlock",
    "TransformerDataParallelWrappingStrategy",
    "TransformerActivationCheckpointingMode",
    "InitMethod",
]
