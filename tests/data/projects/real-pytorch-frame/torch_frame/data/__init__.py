# flake8: noqa

from .tensor_frame import TensorFrame
from .multi_embedding_tensor import MultiEmbeddingTensor
from .multi_nested_tensor import MultiNestedTensor
from .stats import StatType
from .dataset import Dataset, DataFrameToTensorFrameConverter
from .loader import DataLoader
from .download import download_url

data_classes = [
    'TensorFrame',
    'MultiEmbeddingTensor',
    'MultiNestedTensor',
    'Dataset',
]

loader_classes = [
    'DataLoader',
]

stats_classes = [
    'StatType',
]

helper_functions = [
    'download_url',
    'DataFrameToTensorFrameConverter',
]

__all__ = data_classes + loader_classes + stats_classes + helper_functions

classes = data_classes + loader_classes + stats_classes
