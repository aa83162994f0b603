
from .rd_point_convolution import _RdPointConv
from .r2_point_convolution import R2PointConv
from .r3_point_convolution import R3PointConv

__all__ = [
    '_RdPointConv',
    'R2PointConv',
    'R3PointConv',
]