from .bgk_collision import BGKCollision
from .kbc_collision import KBCCollision3D, KBCCollision2D, KBCCollision
from .mrt_collision import MRTCollision
from .no_collision import NoCollision
from .regularized_collision import RegularizedCollision
from .smagorinsky_collision import SmagorinskyCollision
from .trt_collision import TRTCollision

__all__ = [
    'BGKCollision',
    'KBCCollision2D',
    'KBCCollision3D',
    'KBCCollision',
    'MRTCollision',
    'NoCollision',
    'RegularizedCollision',
    'SmagorinskyCollision',
    'TRTCollision'
]
