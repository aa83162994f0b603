"""ZeroKV-Neo: KV cache compression with Adaptive Polar + QJL + Precision Guard."""

from zerokv.adaptive_policy import AdaptiveCompressionPolicy, LayerCompressionState
from zerokv.cache import build_zerokv_cache, describe_gqa_cache_effect, ZeroKVNeoCache
from zerokv.calibration import calibrate
from zerokv.calibration_hub import CalibrationHub, HubEntry
from zerokv.engine import KVMode, ZeroKVEngine
from zerokv.eviction import EvictionPolicy, select_tokens_to_evict
from zerokv.gguf_export import generate_gguf_zerokv_metadata, save_zerokv_profile_as_gguf_kv
from zerokv.kv_report import estimate_zerokv_cache_footprint
from zerokv.leaderboard import BenchmarkLeaderboard, BenchmarkResult
from zerokv.long_context import HierarchicalKVCache
from zerokv.mlx_backend import MLXZeroKVCache
from zerokv.multimodal import MultiModalKVCache
from zerokv.onnx_export import create_onnx_runtime_session, export_zerokv_to_onnx
from zerokv.paper import generate_paper
from zerokv.profiles import ZerokvProfile
from zerokv.profiler import ZeroKVProfiler
from zerokv.quant import compress_kv_tensor, decompress_kv_tensor
from zerokv.streaming import StreamingKVCache
from zerokv.vllm_adapter import ZeroKVVLLMConfig, ZeroKVVLLMEngine

__all__ = [
    "ZeroKVEngine",
    "KVMode",
    "build_zerokv_cache",
    "describe_gqa_cache_effect",
    "ZeroKVNeoCache",
    "estimate_zerokv_cache_footprint",
    "ZerokvProfile",
    "calibrate",
    "compress_kv_tensor",
    "decompress_kv_tensor",
    "EvictionPolicy",
    "select_tokens_to_evict",
    "ZeroKVProfiler",
    "ZeroKVVLLMConfig",
    "ZeroKVVLLMEngine",
    "MLXZeroKVCache",
    "export_zerokv_to_onnx",
    "create_onnx_runtime_session",
    "generate_gguf_zerokv_metadata",
    "save_zerokv_profile_as_gguf_kv",
    "AdaptiveCompressionPolicy",
    "LayerCompressionState",
    "HierarchicalKVCache",
    "MultiModalKVCache",
    "StreamingKVCache",
    "CalibrationHub",
    "HubEntry",
    "BenchmarkLeaderboard",
    "BenchmarkResult",
    "generate_paper",
]
