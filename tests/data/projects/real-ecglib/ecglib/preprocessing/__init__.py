from .functional import *
from .preprocess import *
from .composition import *


__all__ = [
    "functional",
    "preprocess",
    "composition",
]
