from . import frame_classification, parametric_umap, predict_
from .predict_ import predict

__all__ = [
    "frame_classification",
    "parametric_umap",
    "predict",
    "predict_",
]
