from .data_info import DataInfo, MultiSparseInfo
from .dataset import DatasetFeat, DatasetPure
from .processing import process_data, split_multi_value
from .split import (
    random_split,
    split_by_num,
    split_by_num_chrono,
    split_by_ratio,
    split_by_ratio_chrono,
)
from .transformed import TransformedEvalSet, TransformedSet

__all__ = [
    "DatasetPure",
    "DatasetFeat",
    "DataInfo",
    "MultiSparseInfo",
    "process_data",
    "split_multi_value",
    "split_by_num",
    "split_by_ratio",
    "split_by_num_chrono",
    "split_by_ratio_chrono",
    "random_split",
    "TransformedSet",
    "TransformedEvalSet",
]
