from ._force import *
from .guo import *
from .shan_chen import *

__all__ = [
    'Force',
    'Guo',
    'ShanChen'
]
