"""Caching system for eurydice."""

from eurydice.cache.base import Cache
from eurydice.cache.filesystem import FilesystemCache
from eurydice.cache.key import generate_cache_key
from eurydice.cache.memory import MemoryCache

__all__ = [
    "Cache",
    "MemoryCache",
    "FilesystemCache",
    "generate_cache_key",
]
