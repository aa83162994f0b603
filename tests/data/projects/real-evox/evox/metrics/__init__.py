__all__ = ["gd", "hv", "igd"]

from .gd import gd
from .hv import hv
from .igd import igd
