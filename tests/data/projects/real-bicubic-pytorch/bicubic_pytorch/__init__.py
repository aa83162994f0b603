__all__ = ['core', 'core_warp']

from .core import imresize