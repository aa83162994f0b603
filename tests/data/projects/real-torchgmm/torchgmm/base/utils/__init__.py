from .generics import get_generic_type
from .path import PathType

__all__ = ["PathType", "get_generic_type"]
