from infini_transformer_pytorch.infini_transformer import (
    InfiniTransformer,
    FastweightMemory,
    detach_memories_,
    detach_cached_kv_
)

from infini_transformer_pytorch.wrapper import (
    InfiniTransformerWrapper
)

__all__ = [
    InfiniTransformer,
    FastweightMemory,
    InfiniTransformerWrapper,
    detach_memories_,
    detach_cached_kv_
]
