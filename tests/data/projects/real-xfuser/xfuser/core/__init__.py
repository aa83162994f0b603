from .cache_manager import CacheManager
from .long_ctx_attention import xFuserLongContextAttention
from .utils import gpu_timer_decorator

__all__ = [
    "CacheManager",
    "xFuserLongContextAttention",
    "gpu_timer_decorator",
]
