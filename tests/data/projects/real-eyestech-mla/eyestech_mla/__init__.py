"""
EyesTech Multi-Head Latent Attention (MLA) Package
Reference PyTorch kernel with absorbed query decoding and KV cache memory scaling benchmarks.

Maintained by EyesTech Systems Lab (https://eyestech.in)
Reference Publication: https://eyestech.in/deepseek-mla-architecture-kv-cache-math/
"""

from .decode import MultiHeadLatentAttentionDecode
from .benchmark import compute_kv_cache_bytes, format_bytes, run_benchmark

__version__ = "1.0.0"
__author__ = "Klaus Fischer, Devika Ranganathan <research@eyestech.in>"
__all__ = [
    "MultiHeadLatentAttentionDecode",
    "compute_kv_cache_bytes",
    "format_bytes",
    "run_benchmark",
    "__version__",
]
