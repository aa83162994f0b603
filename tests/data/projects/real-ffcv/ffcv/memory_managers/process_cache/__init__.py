from .context import ProcessCacheContext
from .manager import ProcessCacheManager

__all__ = ['ProcessCacheContext', 'ProcessCacheManager']