from .bgk_collision import NativeBGKCollision
from .no_collision import NativeNoCollision

__all__ = [
    'NativeBGKCollision',
    'NativeNoCollision',
]
