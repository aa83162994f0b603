r"""Specialized subtypes of ``torch.Tensor``, datasets thereof, and data transforms."""

from .collate import collate_samples
from .prepare import prepare_batch

from .dataset import Dataset
from .dataset import ImageDataset
from .dataset import ImageDatasetConfig
from .dataset import MetaDataset
from .dataset import GroupDataset
from .dataset import JoinDataset

from .partition import Partition
from .partition import dataset_split_lengths

from .image import Image
from .image import ImageBatch

from .flow import FlowField
from .flow import FlowFields


__all__ = (
    # Tensor specializations
    "FlowField",
    "FlowFields",
    "Image",
    "ImageBatch",
    # Data collections
    "Dataset",
    "GroupDataset",
    "ImageDataset",
    "ImageDatasetConfig",
    "JoinDataset",
    "MetaDataset",
    # Data partitioning
    "dataset_split_lengths",
    "Partition",
    # Data loading
    "collate_samples",
    "prepare_batch",
)
