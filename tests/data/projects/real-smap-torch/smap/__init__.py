from .smap import SMap, SMap3x3  # re-export SMap3x3 từ module smap.py
from .specials import *
from .utils import *

__version__ = "1.0.4"
__all__ = ["SMap", "SMap3x3", "specials", "utils", "rectify"]
