from .base import MemoryManager, MemoryContext
from .process_cache import ProcessCacheManager
from .os_cache import OSCacheManager

__all__ = ['OSCacheManager', 'ProcessCacheManager',
           'MemoryManager', 'MemoryContext']
