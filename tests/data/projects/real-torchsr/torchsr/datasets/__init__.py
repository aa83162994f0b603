from .div2k import Div2K
from .flickr2k import Flickr2K
from .realsr import RealSRv3
from .reds import REDS
from .benchmarks import Set5, Set14, B100, Urban100

__all__ = ('Div2K', 'Flickr2K', 'RealSRv3', 'REDS', 'Set5', 'Set14', 'B100', 'Urban100')
