from .get_batch import get_batch, sample_dataset, sample_x
from .ops import binary_ops, unary_ops
from .trees import evaluate_tree, sample_tree

__all__ = [
    "get_batch",
    "sample_dataset",
    "sample_x",
    "binary_ops",
    "unary_ops",
    "evaluate_tree",
    "sample_tree",
]
