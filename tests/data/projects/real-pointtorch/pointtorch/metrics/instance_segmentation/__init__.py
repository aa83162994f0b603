"""Instance segmentation metrics."""

from ._match_instances import *

__all__ = [name for name in globals().keys() if not name.startswith("_")]
