from .chunker import SentenceChunker
from .batcher import MicroBatcher, TTSRequest
from .engine import TTSEngine, MockEngine

__all__ = [
    "SentenceChunker",
    "MicroBatcher",
    "TTSRequest",
    "TTSEngine",
    "MockEngine",
]
