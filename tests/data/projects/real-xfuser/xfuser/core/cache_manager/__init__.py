from .cache_manager import CacheManager

__all__ = [
    "CacheManager",
]
