"""
StreamTransformer (STR): Depth-Invariant Layer-Streaming Engine for PyTorch
Author: Ranveer Kumar (Independent AI Researcher)
"""

from stream_transformer.engine import StreamEngine, StreamTransformer
from stream_transformer.trainer import StreamTrainer
from stream_transformer.sharder import CheckpointSharder
from stream_transformer.prefetcher import AsyncLayerPrefetcher
from stream_transformer.kv_cache import StreamKVCache
from stream_transformer.utils import MemoryProfiler
from stream_transformer.models import LlamaDecoderBlock, RMSNorm, LlamaAttention, LlamaMLP

__version__ = "0.2.2"
__author__ = "Ranveer Kumar"

__all__ = [
    "StreamEngine",
    "StreamTransformer",
    "StreamTrainer",
    "StreamKVCache",
    "CheckpointSharder",
    "AsyncLayerPrefetcher",
    "MemoryProfiler",
    "LlamaDecoderBlock",
    "RMSNorm",
    "LlamaAttention",
    "LlamaMLP",
]
