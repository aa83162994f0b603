from .predict import *

__all__ = [
    "predict",
]
