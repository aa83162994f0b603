from .collation import collate_tensor, collate_tuple
from .loader import DataLoader
from .sampler import RangeBatchSampler
from .types import DataLoaderLike, TensorLike, dataset_from_tensors

__all__ = [
    "DataLoader",
    "DataLoaderLike",
    "RangeBatchSampler",
    "TensorLike",
    "collate_tensor",
    "collate_tuple",
    "dataset_from_tensors",
]
