from .reader import SlideReader
from .utils import get_sub_grids

__all__ = ["SlideReader", "get_sub_grids"]
