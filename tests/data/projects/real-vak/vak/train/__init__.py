from . import frame_classification, parametric_umap, train_
from .train_ import train

__all__ = [
    "frame_classification",
    "parametric_umap",
    "train_",
    "train",
]
