from .cache import CacheState, BatchedKVHelper, truncate_cache, create_empty_cache
from .pipeline import StreamingZeroShotClassificationPipeline
from .strategies import (
    NeverStrategy,
    ComposedStrategy,
    EveryChunkStrategy,
    OnDelimiterStrategy,
    EveryNTokensStrategy,
    SlidingWindowStrategy,
    ClassificationStrategy,
)

__all__ = [
    "BatchedKVHelper",
    "CacheState",
    "ClassificationStrategy",
    "ComposedStrategy",
    "EveryChunkStrategy",
    "EveryNTokensStrategy",
    "NeverStrategy",
    "OnDelimiterStrategy",
    "SlidingWindowStrategy",
    "StreamingZeroShotClassificationPipeline",
    "create_empty_cache",
    "truncate_cache",
]
