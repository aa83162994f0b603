from . import eval_, frame_classification, parametric_umap
from .eval_ import eval

__all__ = [
    "eval",
    "eval_",
    "frame_classification",
    "parametric_umap",
]
